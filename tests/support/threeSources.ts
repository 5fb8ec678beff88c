/**
 * One engine in front of three Postgres servers, each a source of its own, as a v2 project split
 * over several databases is deployed:
 *
 * - `default`: the engine's own database on the test Postgres (`npm test`'s server): `author`;
 * - `shop`: a PG cluster from the machine's packages (systemPostgres.ts) reached through a
 *   PgBouncer in transaction mode (prepared statements off for it): `book (author_id → author.id)`;
 * - `archive`: another cluster with a streaming hot standby (standbyPostgres.ts), registered as its
 *   read replica: `review (book_id → book.id)`.
 *
 *   const three = await startThreeSources();
 *   await three.engine.graphql('{ author { name } shop_book { title } archive_review { stars } }');
 *   await three.stop();
 *
 * The tables' rows are the same on every start (`SEED`), their keys chosen so that a relationship
 * across the sources (author → books → reviews) and an event trigger on each table can be added to
 * the metadata by `replaceMetadata` without another setup. Root fields of `shop` and `archive` carry
 * their source's name as prefix (`shop_book`, `archive_review`). Servers are started in parallel;
 * as root, Postgres runs as `postgres` (commands from `/`), PgBouncer as `nobody`.
 */
import { startPgbouncer, type Pgbouncer } from './pgbouncer.js';
import { startSystemPostgres } from './systemPostgres.js';
import { sqlOn, startReplicatedPostgres, type ReplicatedPostgres } from './standbyPostgres.js';
import { eventually } from './eventReceiver.js';
import { startTestEngine, type HttpResult, type TestEngine, type TestEngineOptions } from '../integration/harness.js';

export type SystemServer = Awaited<ReturnType<typeof startSystemPostgres>>;

export interface ThreeSources {
  engine: TestEngine;
  /** `shop`'s cluster (`halt()` / `start()`: pg_ctl stop -m fast / start) and the PgBouncer in front of it. */
  shop: { server: SystemServer; bouncer: Pgbouncer; /** through PgBouncer */ url: string; directUrl: string };
  /** `archive`'s primary and its standby (the source's read replica). */
  archive: { servers: ReplicatedPostgres; url: string; standbyUrl: string };
  /** POST /v1/metadata as admin. */
  metadata(body: unknown): Promise<HttpResult>;
  /** The metadata as a version-3 document (`export_metadata` version 2). */
  exportMetadata(): Promise<any>;
  /** `replace_metadata` of `edit(exported document)`; throws unless the engine took it. */
  replaceMetadata(edit: (doc: any) => void): Promise<void>;
  stop(): Promise<void>;
}

/** The rows every start has: ids fixed so that tests can name them. */
export const SEED = {
  default: `CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO author VALUES (1, 'Ann'), (2, 'Bo');`,
  shop: `CREATE TABLE book (id int PRIMARY KEY, author_id int NOT NULL, title text NOT NULL);
    INSERT INTO book VALUES (10, 1, 'Blue'), (11, 1, 'Red'), (12, 2, 'Green');`,
  archive: `CREATE TABLE review (id serial PRIMARY KEY, book_id int NOT NULL, stars int NOT NULL);
    INSERT INTO review (book_id, stars) VALUES (10, 5), (10, 4), (12, 3);`,
};

export interface ThreeSourcesOptions {
  /** Settings of the engine (the read-replica checks and the sources' probes are quick by default: 200 ms, 1 s of lag at most; 500 ms). */
  engine?: TestEngineOptions;
  /** The `archive` source registers its standby as read replica (default true). */
  archiveReplica?: boolean;
}

export async function startThreeSources(o: ThreeSourcesOptions = {}): Promise<ThreeSources> {
  const undo: Array<() => unknown> = [];
  const stop = async () => {
    for (const u of undo.reverse()) {
      try {
        await u();
      } catch {
        /* the rest still goes */
      }
    }
  };
  try {
    const [server, servers] = await Promise.all([startSystemPostgres(), startReplicatedPostgres()]);
    undo.push(() => server.stop(), () => servers.stop());
    const bouncer = await startPgbouncer({ serverUrl: server.url, poolMode: 'transaction', poolSize: 10 });
    undo.push(() => bouncer.stop());
    const archiveUrl = servers.primaryUrl();
    const standbyUrl = servers.standby.url();
    await Promise.all([sqlOn(server.url, SEED.shop), sqlOn(archiveUrl, SEED.archive)]);
    // The standby has the seed before it serves reads (a fresh table is replayed in a few ms).
    await eventually(() => sqlOn(standbyUrl, 'SELECT count(*)::int AS n FROM review').catch(() => [{ n: -1 }]), (rows) => rows[0].n === 3, 10_000, 'the seed on the standby');

    const engine = await startTestEngine({
      readReplicaCheckIntervalMs: 200,
      readReplicaMaxLagMs: 1000,
      readReplicaWaitForLsnMs: 500,
      ...o.engine,
      startOptions: { sourceWatch: { everyMs: 500, downEveryMs: 250, timeoutMs: 2000 }, ...o.engine?.startOptions },
    });
    undo.push(() => engine.stop());
    await engine.runSql(SEED.default);
    const metadata = (body: unknown) => engine.request('POST', '/v1/metadata', body);
    const check = (r: HttpResult, what: string) => {
      if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text}`);
    };
    check(await metadata({
      type: 'pg_add_source',
      args: {
        name: 'shop',
        configuration: { connection_info: { database_url: bouncer.url('postgres'), use_prepared_statements: false, pool_settings: { max_connections: 8 } } },
        customization: { root_fields: { prefix: 'shop_' } },
      },
    }), 'pg_add_source shop');
    check(await metadata({
      type: 'pg_add_source',
      args: {
        name: 'archive',
        configuration: {
          connection_info: { database_url: archiveUrl, pool_settings: { max_connections: 8 } },
          ...(o.archiveReplica === false ? {} : { read_replicas: [{ database_url: standbyUrl, pool_settings: { max_connections: 4 } }] }),
        },
        customization: { root_fields: { prefix: 'archive_' } },
      },
    }), 'pg_add_source archive');
    const exportMetadata = async () => (await metadata({ type: 'export_metadata', version: 2, args: {} })).body;
    const replaceMetadata = async (edit: (doc: any) => void) => {
      const doc = await exportMetadata();
      edit(doc);
      const r = await metadata({ type: 'replace_metadata', version: 2, args: { metadata: doc } });
      check(r, 'replace_metadata');
    };
    const table = (name: string) => ({ table: { schema: 'public', name } });
    await replaceMetadata((doc) => {
      const of = (name: string) => doc.sources.find((s: any) => s.name === name);
      of('default').tables = [table('author')];
      of('shop').tables = [table('book')];
      of('archive').tables = [table('review')];
    });
    return {
      engine,
      shop: { server, bouncer, url: bouncer.url('postgres'), directUrl: server.url },
      archive: { servers, url: archiveUrl, standbyUrl },
      metadata,
      exportMetadata,
      replaceMetadata,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
