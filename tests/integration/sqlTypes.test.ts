/**
 * Every Postgres type of Hasura's `select_query_test_types` case, compiled and run: the JSON
 * Postgres builds must be exactly the response Hasura gives (golden tests/golden/sql/test_types.json),
 * with stringify-numeric-types on (int8/numeric/float8 as strings), the JSON `path` argument,
 * composite types as objects, and timestamptz as `+00:00` under TimeZone UTC.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { SelectField } from '../../src/ir/index.js';
import { compileSelect } from '../../src/sql/index.js';
import { openSqlTestDb, select, type SqlTestDb } from './sqlHarness.js';

const SCHEMA = `
CREATE TYPE complex AS (
    r       double precision,
    i       double precision
);
CREATE TYPE inventory_item AS (
    name            text,
    supplier_id     integer,
    price           numeric
);
create table test_types (
    c1_smallint smallint,
    c2_integer integer,
    c3_bigint bigint,
    c4_decimal decimal (5, 2),
    c5_numeric numeric (4, 3),
    c6_real real,
    c7_double_precision double precision,
    c8_smallserial smallserial,
    c9_serial serial,
    c10_bigserial bigserial,
    c11_varchar_3 varchar(3),
    c12_char_4 char(4),
    c13_text text,
    c14_timestamp timestamp,
    c15_timestamptz timestamptz,
    c16_date date,
    c17_time time,
    c18_time_with_zone time with time zone,
    c19_interval interval,
    c20_boolean boolean,
    c21_point point,
    c22_line line,
    c23_lseg lseg,
    c24_box box,
    c25_closed_path path,
    c26_open_path path,
    c27_polygon  polygon,
    c28_circle circle,
    c29_cidr cidr,
    c30_inet inet,
    c31_macaddr macaddr,
    c32_json json,
    c33_jsonb jsonb,
    c34_text_array text[],
    c35_integer_2d_array integer[][],
    c36_uuid uuid,
    c37_composite_type_complex complex,
    c38_composite_type_inventory inventory_item,
    c39_range_integer int4range,
    c40_range_bigint int8range,
    c41_range_numeric numrange,
    c42_range_timestamp tsrange,
    c43_range_timestamptz tstzrange,
    c44_xml xml,
    c45_money money
);
insert into test_types
( c1_smallint
, c2_integer
, c3_bigint
, c4_decimal
, c5_numeric
, c6_real
, c7_double_precision
, c11_varchar_3
, c12_char_4
, c13_text
, c14_timestamp
, c15_timestamptz
, c16_date
, c17_time
, c18_time_with_zone
, c19_interval
, c20_boolean
, c21_point
, c22_line
, c23_lseg
, c24_box
, c25_closed_path
, c26_open_path
, c27_polygon
, c28_circle
, c29_cidr
, c30_inet
, c31_macaddr
, c32_json
, c33_jsonb
, c34_text_array
, c35_integer_2d_array
, c36_uuid
, c37_composite_type_complex
, c38_composite_type_inventory
, c39_range_integer
, c40_range_bigint
, c41_range_numeric
, c42_range_timestamp
, c43_range_timestamptz
, c44_xml
, c45_money
)
values
( 32767                                       -- c1_smallint
, 2147483647                                  -- c2_integer
, 9223372036854775807                         -- c3_bigint
, 123.45                                      -- c4_decimal
, 1.234                                       -- c5_numeric
, 0.00390625                                  -- c6_real
, 16.0001220703125                            -- c7_double_precision
, 'abc'                                       -- c11_varchar_3
, 'baaz'                                      -- c12_char_4
, 'foo bar baz'                               -- c13_text
, '2004-10-19T10:23:54'                       -- c14_timestamp
, '2015-10-17T14:42:43+00:00'                 -- c15_timestamptz
, '2014-09-14'                                -- c16_date
, '11:09:23'                                  -- c17_time
, '15:22:23+00'                               -- c18_time_with_zone
, '01:03:02'                                  -- c19_interval
, true                                        -- c20_boolean
, '(1,2)'                                     -- c21_point
, '{2,3,-1}'                                  -- c22_line
, '[(4,2),(3,1)]'                             -- c23_line
, '((31,12),(14,11))'                         -- c24_box
, '((0,0),(0,3),(1,0))'                       -- c25_closed_path
, '[(0,0),(0,-1),(-3,0)]'                     -- c26_open_path
, '((0,0),(0,6),(2,0))'                       -- c27_polygon
, '<(-2,-3),3>'                               -- c28_circle
, '192.168.100.128/25'                        -- c29_cidr
, '198.24.10.0'                               -- c30_inet
, '08:00:2b:01:02:03'                         -- c31_macaddr
, '{ "a" : "b", "obj": { "c1": "c2" }, "arr": [1, 2, 3], "_underscore": 0, "!@#$%^": "special", "translations": { "hello world!": "hi" }, "objs": [{ "你好": "Hello!" }] }' -- c32_json
, '{ "c" : "d", "obj": { "e1": "e2" }, "arr": [4, 5, 6], "_underscore": 0, "!@#$%^": "special", "translations": { "hello world!": "hi" }, "objs": [{ "你好": "Hello!" }] }' -- c33_jsonb
, '{"a","b","c"}'                             -- c34_text_array
, '{{4,5,6},{7,8,9}}'                         -- c35_integer_2d_array
, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'      -- c36_uuid
, '(1.23,-3.456)'                             -- c37_composite_type_complexa
, '("fuzzy dice",42,1.99)'                    -- c38_composite_type_inventory
, '[123,456)'                                 -- c39_range_integer
, '[1147483647, 2147483647)'                  -- c40_range_bigint
, '[1.23, 4.56]'                              -- c41_range_numeric
, '[2010-01-01 14:30:00, 2010-01-01 15:30:02)' -- c42_range_timestamp
, '(2011-02-05T12:03:00+00:00, 2012-03-04T16:40:04+00:00]' -- c43_range_timestamptz
, '<foo>bar</foo>'                            -- c44_xml
,  123.45                                     -- c45_money
);
`;

/** Column name → udt name, in the order of the case's query. */
const COLUMNS: Array<[string, string]> = [
  ['c1_smallint', 'int2'],
  ['c2_integer', 'int4'],
  ['c3_bigint', 'int8'],
  ['c4_decimal', 'numeric'],
  ['c5_numeric', 'numeric'],
  ['c6_real', 'float4'],
  ['c7_double_precision', 'float8'],
  ['c8_smallserial', 'int2'],
  ['c9_serial', 'int4'],
  ['c10_bigserial', 'int8'],
  ['c11_varchar_3', 'varchar'],
  ['c12_char_4', 'bpchar'],
  ['c13_text', 'text'],
  ['c14_timestamp', 'timestamp'],
  ['c15_timestamptz', 'timestamptz'],
  ['c16_date', 'date'],
  ['c17_time', 'time'],
  ['c18_time_with_zone', 'timetz'],
  ['c19_interval', 'interval'],
  ['c20_boolean', 'bool'],
  ['c21_point', 'point'],
  ['c22_line', 'line'],
  ['c23_lseg', 'lseg'],
  ['c24_box', 'box'],
  ['c25_closed_path', 'path'],
  ['c26_open_path', 'path'],
  ['c27_polygon', 'polygon'],
  ['c28_circle', 'circle'],
  ['c29_cidr', 'cidr'],
  ['c30_inet', 'inet'],
  ['c31_macaddr', 'macaddr'],
  ['c32_json', 'json'],
  ['c33_jsonb', 'jsonb'],
  ['c34_text_array', '_text'],
  ['c35_integer_2d_array', '_int4'],
  ['c36_uuid', 'uuid'],
  ['c37_composite_type_complex', 'complex'],
  ['c38_composite_type_inventory', 'inventory_item'],
  ['c39_range_integer', 'int4range'],
  ['c40_range_bigint', 'int8range'],
  ['c41_range_numeric', 'numrange'],
  ['c42_range_timestamp', 'tsrange'],
  ['c43_range_timestamptz', 'tstzrange'],
  ['c44_xml', 'xml'],
  ['c45_money', 'money'],
];

/** Hasura stringifies these under --stringify-numeric-types. */
const BIG_NUMBERS = new Set(['int8', 'numeric', 'float8']);

/** The case's `path` arguments, parsed into segments (the planner's job). */
const PATHS: Array<[string, string, string[]]> = [
  ['c32_json_dollar', 'c32_json', []],
  ['c32_json_child_prop', 'c32_json', ['obj', 'c1']],
  ['c32_json_child_prop_no_dot', 'c32_json', ['a']],
  ['c32_json_array_item', 'c32_json', ['arr', '0']],
  ['c32_json_underscore_prefix', 'c32_json', ['_underscore']],
  ['c32_json_special_chars', 'c32_json', ['!@#$%^']],
  ['c32_json_translations', 'c32_json', ['translations', 'hello world!']],
  ['c32_json_nested_special_array', 'c32_json', ['objs', '0', '你好']],
  ['c32_json_nested_special_array_double_quote', 'c32_json', ['objs', '0', '你好']],
  ['c32_json_nested_special_array_double_quote_dot', 'c32_json', ['objs', '0', '你好']],
  ['c33_jsonb_dollar', 'c33_jsonb', []],
  ['c33_jsonb_child_prop', 'c33_jsonb', ['obj', 'e1']],
  ['c33_jsonb_child_prop_no_dot', 'c33_jsonb', ['c']],
  ['c33_jsonb_array_item', 'c33_jsonb', ['arr', '2']],
  ['c33_jsonb_underscore_prefix', 'c33_jsonb', ['_underscore']],
  ['c33_jsonb_special_chars', 'c33_jsonb', ['!@#$%^']],
  ['c33_jsonb_translations', 'c33_jsonb', ['translations', 'hello world!']],
  ['c33_jsonb_nested_special_array', 'c33_jsonb', ['objs', '0', '你好']],
  ['c33_jsonb_nested_special_array_double_quote', 'c33_jsonb', ['objs', '0', '你好']],
  ['c33_jsonb_nested_special_array_double_quote_dot', 'c33_jsonb', ['objs', '0', '你好']],
];

function fieldsInQueryOrder(): SelectField[] {
  const fields: SelectField[] = [];
  for (const [column, pgType] of COLUMNS) {
    fields.push({ alias: column, kind: 'column', column, pgType, stringify: BIG_NUMBERS.has(pgType) });
    for (const [alias, c, jsonPath] of PATHS) {
      if (c === column) fields.push({ alias, kind: 'column', column, pgType, jsonPath });
    }
  }
  return fields;
}

let db: SqlTestDb;
before(async () => {
  db = await openSqlTestDb(SCHEMA);
});
after(async () => {
  await db?.close();
});

describe('test_types (Hasura select_query_test_types)', () => {
  it('returns every type exactly as Hasura does, keys in query order', async () => {
    const expected = JSON.parse(readFileSync(new URL('../golden/sql/test_types.json', import.meta.url), 'utf8'));
    const text = await db.runText(compileSelect(select('test_types', fieldsInQueryOrder())));
    const got = JSON.parse(text);
    assert.deepEqual(got, expected);
    assert.deepEqual(Object.keys(got[0]), Object.keys(expected[0]));
  });

  it('writes numbers as JSON numbers when stringify is off', async () => {
    const fields: SelectField[] = [
      { alias: 'big', kind: 'column', column: 'c3_bigint', pgType: 'int8' },
      { alias: 'dec', kind: 'column', column: 'c4_decimal', pgType: 'numeric' },
    ];
    const text = await db.runText(compileSelect(select('test_types', fields)));
    assert.equal(text, '[{"big":9223372036854775807,"dec":123.45}]');
  });
});
