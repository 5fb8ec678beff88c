/**
 * A project written for this test in Hasura v2's own format (config v3, tests/support/fixtures/
 * hasura-projects/team-invites/), replayed as a team moving off Hasura would: `migrate apply` and
 * `metadata apply` of the folder through the CLI, then its roles against a real engine. It uses
 * function permissions (`functions/*.yaml` with `permissions`: a VOLATILE `accept_team_invite`
 * tracked as a mutation for `manager` only, a query function), an inherited role that combines them,
 * and actions whose outputs are a scalar list (`[String!]!`), an enum (`TeamRole`) and a custom
 * scalar (`Json`), answered by a real handler over HTTP.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startTestEngine, type TestEngine } from './harness.js';
import { cliAgainst } from '../support/cliInProcess.js';
import { startWebhookServer, type WebhookServer } from '../support/webhookServer.js';

const dir = fileURLToPath(new URL('../support/fixtures/hasura-projects/team-invites/', import.meta.url));

const cli = (e: TestEngine, command: string, argv: string[]) => cliAgainst(e.url, command, argv);

const rows = async (e: TestEngine, sql: string): Promise<string[][]> => ((await e.runSql(sql)).result as string[][]).slice(1);
const as = (role: string, id: number) => ({ 'x-svc-role': role, 'x-svc-user-id': String(id) });

describe('team-invites (Hasura v2 format: function permissions, an inherited role, scalar and enum action outputs)', () => {
  let e: TestEngine;
  let hooks: WebhookServer;

  before(async () => {
    hooks = await startWebhookServer((req) => {
      const path = new URL(req.url, 'http://x').pathname;
      if (path === '/team-names') return { status: 200, body: ['blue', 'red'] };
      if (path === '/my-team-role') return { status: 200, body: 'MEMBER' };
      if (path === '/export-team') return { status: 200, body: { team: 'red', members: [1, 3], archived: false } };
      return { status: 404, body: { message: 'no such handler' } };
    });
    // The project's handlers are {{ACTION_BASE_URL}}/… as Hasura's CLI writes them.
    process.env.ACTION_BASE_URL = hooks.url.replace(/\/auth$/, '');
    e = await startTestEngine();
  });
  after(async () => {
    await e?.stop();
    await hooks?.stop();
    delete process.env.ACTION_BASE_URL;
  });

  test('migrate apply, metadata apply, consistent, no drift; the function permissions are in the metadata', async () => {
    const m = await cli(e, 'migrate', ['apply', '--project', dir]);
    assert.equal(m.code, 0, m.err);
    const md = await cli(e, 'metadata', ['apply', '--project', dir]);
    assert.equal(md.code, 0, md.err + md.out);
    const ic = await cli(e, 'metadata', ['ic', 'list']);
    assert.equal(ic.code, 0, ic.out);
    assert.match(ic.err, /metadata is consistent/);
    const diff = await cli(e, 'metadata', ['diff', '--dir', dir + 'metadata']);
    assert.equal(diff.code, 0, diff.out);
    assert.match(diff.err, /no differences/);
    const exported = (await e.query({ type: 'export_metadata', args: {} })).body;
    assert.deepEqual(exported.functions.map((f: { function: { name: string }; permissions?: unknown }) => [f.function.name, f.permissions]), [
      ['accept_team_invite', [{ role: 'manager' }]],
      ['search_teams', [{ role: 'user' }]],
    ]);
  });

  test('accept_team_invite is the manager\'s (and the inherited staff role\'s), never an ordinary user\'s', async () => {
    const invite = (name: string, member: number) => `mutation { accept_team_invite(args: {team_name: "${name}", member_id: ${member}}) { team_id user_id } }`;
    // A user may read teams but not accept invites on anyone's behalf: no mutation at all, nothing inserted.
    const refused = await e.graphql(invite('red', 9), undefined, as('user', 9));
    assert.deepEqual(refused.body.errors?.[0]?.extensions?.code, 'validation-failed', refused.text);
    assert.deepEqual(await rows(e, 'SELECT count(*)::text FROM team_member WHERE user_id = 9'), [['0']]);
    // The manager of red adds member 3 and sees the row its select permission allows.
    const added = await e.graphql(invite('red', 3), undefined, as('manager', 1));
    assert.deepEqual(added.body, { data: { accept_team_invite: [{ team_id: 1, user_id: 3 }] } });
    // staff = [user, manager]: the manager's function permission comes with it.
    const staff = await e.graphql(invite('blue', 4), undefined, as('staff', 2));
    assert.deepEqual(staff.body, { data: { accept_team_invite: [{ team_id: 2, user_id: 4 }] } });
    // search_teams: the user's function permission (inference is on as well, as Hasura's default).
    const search = await e.graphql('{ search_teams(args: {search: "e"}, order_by: {id: asc}) { name } }', undefined, as('user', 9));
    assert.deepEqual(search.body, { data: { search_teams: [{ name: 'red' }, { name: 'blue' }] } });
  });

  test('actions with a scalar list, an enum and a custom scalar output', async () => {
    const q = await e.graphql('query { teamNames(prefix: "b") myTeamRole(team: "red") }', undefined, as('user', 3));
    assert.deepEqual(q.body, { data: { teamNames: ['blue', 'red'], myTeamRole: 'MEMBER' } });
    const exported = await e.graphql('mutation { exportTeam(team: "red") }', undefined, as('manager', 1));
    assert.deepEqual(exported.body, { data: { exportTeam: { team: 'red', members: [1, 3], archived: false } } });
    const notUsers = await e.graphql('mutation { exportTeam(team: "red") }', undefined, as('user', 3));
    assert.equal(notUsers.body.errors?.[0]?.extensions?.code, 'validation-failed');
    const calls = hooks.requests.map((r) => new URL(r.url, 'http://x').pathname);
    assert.deepEqual(calls, ['/team-names', '/my-team-role', '/export-team']);
  });
});
