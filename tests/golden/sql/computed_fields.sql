-- params: [{"source":{"kind":"variable","name":"s"},"pgType":"text"},{"source":{"kind":"sessionJson"},"pgType":"json"},{"source":{"kind":"value","value":3},"pgType":"int4"}]
SELECT coalesce(json_agg((SELECT _r FROM (SELECT "public"."author_full_name"(_t0) AS "full_name", _j5."v" AS "get_articles") AS _r) ORDER BY _j4."v" ASC), '[]') AS "root"
FROM (SELECT _t0.*
  FROM "public"."author" AS _t0
  LEFT JOIN LATERAL (SELECT count(*) AS "v"
    FROM "public"."article" AS _t1
    WHERE _t1."author_id" = _t0."id") AS _j2 ON true
  ORDER BY _j2."v" ASC
  LIMIT 2) AS _t0
LEFT JOIN LATERAL (SELECT count(*) AS "v"
  FROM "public"."article" AS _t3
  WHERE _t3."author_id" = _t0."id") AS _j4 ON true
LEFT JOIN LATERAL (SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t6."id" AS "id") AS _r)), '[]') AS "v"
  FROM (SELECT *
    FROM "public"."author_get_articles"(_t0, $1::"text", $2::"json", "lim" => $3::"int4") AS _t6) AS _t6) AS _j5 ON true
