-- params: [{"source":{"kind":"variable","name":"id"},"pgType":"int4"}]
SELECT coalesce((SELECT row_to_json((SELECT _r FROM (SELECT _t0."id" AS "id", _t0."name" AS "name", _t0."composer" AS "composer", _t0."milliseconds" AS "milliseconds", _t0."unit_price" AS "unit_price") AS _r))
    FROM (SELECT *
      FROM "public"."track" AS _t0
      WHERE _t0."id" = $1::"int4") AS _t0
    LIMIT 1), 'null') AS "root"
