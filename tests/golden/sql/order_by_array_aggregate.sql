-- params: []
SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t0."id" AS "id") AS _r) ORDER BY _t0."__svc_ob_0" DESC, _t0."__svc_ob_1" ASC, _t0."__svc_ob_2" DESC), '[]') AS "root"
FROM (SELECT _t0.*, _j2."v" AS "__svc_ob_0", _j4."v" AS "__svc_ob_1", _j2."v" AS "__svc_ob_2"
  FROM "public"."author" AS _t0
  LEFT JOIN LATERAL (SELECT count(*) AS "v"
    FROM "public"."article" AS _t1
    WHERE _t1."author_id" = _t0."id") AS _j2 ON true
  LEFT JOIN LATERAL (SELECT max(_t3."id") AS "v"
    FROM "public"."article" AS _t3
    WHERE _t3."author_id" = _t0."id") AS _j4 ON true
  ORDER BY _j2."v" DESC, _j4."v" ASC, _j2."v" DESC) AS _t0
