-- params: [{"source":{"kind":"variable","name":"playlist"},"pgType":"int4"},{"source":{"kind":"variable","name":"limit"},"pgType":"int4"}]
SELECT coalesce((SELECT row_to_json((SELECT _r FROM (SELECT _t0."name" AS "name", _j1."v" AS "playlist_tracks") AS _r))
    FROM (SELECT *
      FROM "public"."playlist" AS _t0
      WHERE _t0."id" = $1::"int4") AS _t0
    LEFT JOIN LATERAL (SELECT coalesce(json_agg((SELECT _r FROM (SELECT _j3."v" AS "track") AS _r) ORDER BY _t2."track_id" ASC), '[]') AS "v"
      FROM (SELECT *
        FROM "public"."playlist_track" AS _t2
        WHERE _t2."playlist_id" = _t0."id"
        ORDER BY _t2."track_id" ASC
        LIMIT $2::"int4") AS _t2
      LEFT JOIN LATERAL (SELECT (SELECT _r FROM (SELECT _t4."name" AS "name", _j5."v" AS "album", _j9."v" AS "media_type", _j11."v" AS "genre") AS _r) AS "v"
        FROM (SELECT *
          FROM "public"."track" AS _t4
          WHERE _t4."id" = _t2."track_id") AS _t4
        LEFT JOIN LATERAL (SELECT (SELECT _r FROM (SELECT _t6."title" AS "title", _j7."v" AS "artist") AS _r) AS "v"
          FROM (SELECT *
            FROM "public"."album" AS _t6
            WHERE _t6."id" = _t4."album_id") AS _t6
          LEFT JOIN LATERAL (SELECT (SELECT _r FROM (SELECT _t8."name" AS "name") AS _r) AS "v"
            FROM (SELECT *
              FROM "public"."artist" AS _t8
              WHERE _t8."id" = _t6."artist_id") AS _t8) AS _j7 ON true) AS _j5 ON true
        LEFT JOIN LATERAL (SELECT (SELECT _r FROM (SELECT _t10."name" AS "name") AS _r) AS "v"
          FROM (SELECT *
            FROM "public"."media_type" AS _t10
            WHERE _t10."id" = _t4."media_type_id") AS _t10) AS _j9 ON true
        LEFT JOIN LATERAL (SELECT (SELECT _r FROM (SELECT _t12."name" AS "name") AS _r) AS "v"
          FROM (SELECT *
            FROM "public"."genre" AS _t12
            WHERE _t12."id" = _t4."genre_id") AS _t12) AS _j11 ON true) AS _j3 ON true) AS _j1 ON true
    LIMIT 1), 'null') AS "root"
