-- params: [{"source":{"kind":"variable","name":"genre"},"pgType":"int4"},{"source":{"kind":"variable","name":"media"},"pgType":"int4"},{"source":{"kind":"variable","name":"limit"},"pgType":"int4"}]
SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t0."id" AS "id", _t0."name" AS "name", _t0."composer" AS "composer", _t0."milliseconds" AS "milliseconds", _t0."unit_price" AS "unit_price") AS _r) ORDER BY _t0."name" ASC, _t0."id" ASC), '[]') AS "root"
FROM (SELECT *
  FROM "public"."track" AS _t0
  WHERE (_t0."genre_id" = $1::"int4") AND (_t0."media_type_id" = $2::"int4")
  ORDER BY _t0."name" ASC, _t0."id" ASC
  LIMIT $3::"int4") AS _t0
