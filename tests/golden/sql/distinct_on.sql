-- params: []
SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t0."id" AS "id") AS _r) ORDER BY _t0."department" ASC, _t0."salary" ASC), '[]') AS "root"
FROM (SELECT DISTINCT ON (_t0."department") *
  FROM "public"."employee" AS _t0
  ORDER BY _t0."department" ASC, _t0."salary" ASC) AS _t0
