/**
 * The client headers an action with `forward_client_headers` passes on (actions/callHandler.ts): never
 * the admin secret; under --hasura-compat no `x-hasura-*` header either (they are the session's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roleSession } from '../../../src/core/index.js';
import { forwardedHeaders } from '../../../src/actions/index.js';
import type { ActionInfo } from '../../../src/metadata/index.js';

const action = { meta: { definition: { forward_client_headers: true } } } as unknown as ActionInfo;
const client = { authorization: 'Bearer t', 'x-svc-admin-secret': 's', 'X-Hasura-Admin-Secret': 's', 'x-hasura-role': 'admin', 'x-app': '1' };

test('forwarded client headers: x-hasura-* kept off only when the session was read in Hasura\'s words', () => {
  const session = roleSession('user', {});
  assert.deepEqual(forwardedHeaders(action, client, { ...session, hasuraCompat: true }), { authorization: 'Bearer t', 'x-app': '1' });
  assert.deepEqual(forwardedHeaders(action, client, session), { authorization: 'Bearer t', 'X-Hasura-Admin-Secret': 's', 'x-hasura-role': 'admin', 'x-app': '1' });
  assert.deepEqual(forwardedHeaders({ meta: { definition: {} } } as unknown as ActionInfo, client), {});
});
