-- params: [{"source":{"kind":"value","value":true},"pgType":"bool"}]
SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t0."id" AS "id") AS _r) ORDER BY _t0."__svc_ob_0" DESC NULLS LAST, _t0."id" ASC), '[]') AS "root"
FROM (SELECT _t0.*, _t1."name" AS "__svc_ob_0"
  FROM "public"."article" AS _t0
  LEFT JOIN "public"."author" AS _t1 ON (_t1."id" = _t0."author_id") AND (_t1."is_registered" = $1::"bool")
  ORDER BY _t1."name" DESC NULLS LAST, _t0."id" ASC
  LIMIT 5) AS _t0
