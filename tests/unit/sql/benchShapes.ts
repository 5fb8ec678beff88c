/**
 * The six bench shapes (bench/queries/*.hasura.graphql) as the planner would hand them to
 * the compiler, as admin (no permission filters). Variables stay variables.
 */
import type { AggregateIR, RelationshipJoin, SelectField, SelectIR } from '../../../src/ir/index.js';

const t = (name: string) => ({ schema: 'public', name });
const col = (name: string, pgType = 'int4'): SelectField => ({ alias: name, kind: 'column', column: name, pgType });
const v = (name: string, pgType = 'int4') => ({ source: { kind: 'variable' as const, name }, pgType });
const rel = (remote: string, local: string, remoteCol: string): RelationshipJoin => ({ remoteTable: t(remote), mapping: [{ local, remote: remoteCol }] });
const trackCols = [col('id'), col('name', 'text'), col('composer', 'text'), col('milliseconds'), col('unit_price', 'numeric')];

export const benchShapes = {
  a_by_pk: {
    single: true,
    variables: { id: 4242 },
    ir: {
      table: t('track'),
      fields: trackCols,
      where: { kind: 'compare', column: { column: 'id', pgType: 'int4' }, op: '_eq', value: v('id') },
    } satisfies SelectIR,
  },
  b_list_filter: {
    variables: { genre: 2, media: 1, limit: 20 },
    ir: {
      table: t('track'),
      fields: trackCols,
      where: {
        kind: 'and',
        items: [
          { kind: 'compare', column: { column: 'genre_id', pgType: 'int4' }, op: '_eq', value: v('genre') },
          { kind: 'compare', column: { column: 'media_type_id', pgType: 'int4' }, op: '_eq', value: v('media') },
        ],
      },
      orderBy: [
        { target: { kind: 'column', column: 'name' }, direction: 'asc' },
        { target: { kind: 'column', column: 'id' }, direction: 'asc' },
      ],
      limit: v('limit'),
    } satisfies SelectIR,
  },
  c_nested_3: {
    variables: { limit: 10 },
    ir: {
      table: t('artist'),
      fields: [
        col('id'),
        col('name', 'text'),
        {
          alias: 'albums',
          kind: 'array_rel',
          join: rel('album', 'id', 'artist_id'),
          select: {
            table: t('album'),
            where: { kind: 'true' },
            fields: [
              col('id'),
              col('title', 'text'),
              {
                alias: 'tracks',
                kind: 'array_rel',
                join: rel('track', 'id', 'album_id'),
                select: { table: t('track'), where: { kind: 'true' }, fields: [col('id'), col('name', 'text'), col('milliseconds')] },
              },
            ],
          },
        },
      ],
      where: { kind: 'true' },
      orderBy: [{ target: { kind: 'column', column: 'id' }, direction: 'asc' }],
      limit: v('limit'),
    } satisfies SelectIR,
  },
  d_aggregate: {
    variables: { genre: 2 },
    aggregate: {
      table: t('track'),
      where: { kind: 'compare', column: { column: 'genre_id', pgType: 'int4' }, op: '_eq', value: v('genre') },
      fields: [
        {
          alias: 'aggregate',
          kind: 'aggregate',
          ops: [
            { alias: 'count', kind: 'count' },
            {
              alias: 'sum',
              kind: 'op',
              op: 'sum',
              columns: [
                { alias: 'milliseconds', column: 'milliseconds', pgType: 'int4' },
                { alias: 'unit_price', column: 'unit_price', pgType: 'numeric' },
              ],
            },
          ],
        },
      ],
    } satisfies AggregateIR,
  },
  e_large_1000: {
    variables: { limit: 1000 },
    ir: {
      table: t('track'),
      fields: trackCols,
      where: { kind: 'true' },
      orderBy: [{ target: { kind: 'column', column: 'id' }, direction: 'asc' }],
      limit: v('limit'),
    } satisfies SelectIR,
  },
  f_object_rels: {
    single: true,
    variables: { playlist: 7, limit: 50 },
    ir: {
      table: t('playlist'),
      where: { kind: 'compare', column: { column: 'id', pgType: 'int4' }, op: '_eq', value: v('playlist') },
      fields: [
        col('name', 'text'),
        {
          alias: 'playlist_tracks',
          kind: 'array_rel',
          join: rel('playlist_track', 'id', 'playlist_id'),
          select: {
            table: t('playlist_track'),
            where: { kind: 'true' },
            orderBy: [{ target: { kind: 'column', column: 'track_id' }, direction: 'asc' }],
            limit: v('limit'),
            fields: [
              {
                alias: 'track',
                kind: 'object_rel',
                join: rel('track', 'track_id', 'id'),
                select: {
                  table: t('track'),
                  where: { kind: 'true' },
                  fields: [
                    col('name', 'text'),
                    {
                      alias: 'album',
                      kind: 'object_rel',
                      join: rel('album', 'album_id', 'id'),
                      select: {
                        table: t('album'),
                        where: { kind: 'true' },
                        fields: [
                          col('title', 'text'),
                          {
                            alias: 'artist',
                            kind: 'object_rel',
                            join: rel('artist', 'artist_id', 'id'),
                            select: { table: t('artist'), where: { kind: 'true' }, fields: [col('name', 'text')] },
                          },
                        ],
                      },
                    },
                    {
                      alias: 'media_type',
                      kind: 'object_rel',
                      join: rel('media_type', 'media_type_id', 'id'),
                      select: { table: t('media_type'), where: { kind: 'true' }, fields: [col('name', 'text')] },
                    },
                    {
                      alias: 'genre',
                      kind: 'object_rel',
                      join: rel('genre', 'genre_id', 'id'),
                      select: { table: t('genre'), where: { kind: 'true' }, fields: [col('name', 'text')] },
                    },
                  ],
                },
              },
            ],
          },
        },
      ],
    } satisfies SelectIR,
  },
};
