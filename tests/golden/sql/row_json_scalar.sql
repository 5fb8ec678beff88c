-- params: []
row_to_json((SELECT _r FROM (SELECT "_svc_r"."id" AS "id", (SELECT (SELECT _r FROM (SELECT _mt0."name" AS "name") AS _r) AS "v" FROM (SELECT * FROM "public"."author" AS _mt0 WHERE _mt0."id" = "_svc_r"."author_id") AS _mt0) AS "author") AS _r))
