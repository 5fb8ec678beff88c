-- params: [{"source":{"kind":"variable","name":"genre"},"pgType":"int4"}]
SELECT json_build_object('aggregate', json_build_object('count', count(*), 'sum', json_build_object('milliseconds', sum(_t0."milliseconds"), 'unit_price', sum(_t0."unit_price")))) AS "root"
FROM (SELECT *
  FROM "public"."track" AS _t0
  WHERE _t0."genre_id" = $1::"int4") AS _t0
