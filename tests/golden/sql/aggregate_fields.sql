-- params: []
SELECT json_build_object('__typename', 'article_aggregate'::text, 'agg', json_build_object('n', count(DISTINCT (_t0."author_id")), 'pairs', count((_t0."author_id", _t0."title")), 'mx', json_build_object('id', max(_t0."id"), 'big', (max(_t0."views"))::text, '__typename', 'article_max_fields'::text)), 'rows', coalesce(json_agg((SELECT _r FROM (SELECT _t0."id" AS "id") AS _r) ORDER BY _t0."id" DESC), '[]')) AS "root"
FROM (SELECT *
  FROM "public"."article" AS _t0
  ORDER BY _t0."id" DESC
  LIMIT 2) AS _t0
