-- params: [{"source":{"kind":"variable","name":"limit"},"pgType":"int4"}]
SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t0."id" AS "id", _t0."name" AS "name", _j1."v" AS "albums") AS _r) ORDER BY _t0."id" ASC), '[]') AS "root"
FROM (SELECT *
  FROM "public"."artist" AS _t0
  ORDER BY _t0."id" ASC
  LIMIT $1::"int4") AS _t0
LEFT JOIN LATERAL (SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t2."id" AS "id", _t2."title" AS "title", _j3."v" AS "tracks") AS _r)), '[]') AS "v"
  FROM (SELECT *
    FROM "public"."album" AS _t2
    WHERE _t2."artist_id" = _t0."id") AS _t2
  LEFT JOIN LATERAL (SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t4."id" AS "id", _t4."name" AS "name", _t4."milliseconds" AS "milliseconds") AS _r)), '[]') AS "v"
    FROM (SELECT *
      FROM "public"."track" AS _t4
      WHERE _t4."album_id" = _t2."id") AS _t4) AS _j3 ON true) AS _j1 ON true
