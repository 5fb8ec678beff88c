-- params: []
SELECT json_build_object('aggregate', json_build_object('count', count(*)), 'nodes', (SELECT coalesce(json_agg((SELECT _r FROM (SELECT _t1."id" AS "id") AS _r)), '[]') AS "v" FROM (SELECT * FROM "public"."article" AS _t1 LIMIT 10) AS _t1)) AS "root"
FROM (SELECT *
  FROM "public"."article" AS _t0) AS _t0
