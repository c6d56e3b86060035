# syntax=docker/dockerfile:1
# bot-dispatcher: Webhook delivery worker; its port serves only health and metrics.
# Build from the repository root:  docker build -f docker/bot-dispatcher.Dockerfile -t bot-dispatcher .
# The base: Node.js 24, the long-term-support line furthest from its end of life (docs/deployment.md#images).
ARG NODE_IMAGE=node:24.21-bookworm-slim

# --- build: full dependency tree, compile the app and the libs it imports ---------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /workspace
ENV NX_DAEMON=false NX_NO_CLOUD=true NX_SKIP_NX_CACHE=true
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY nx.json tsconfig.base.json ./
COPY libs ./libs
COPY apps/bot-dispatcher ./apps/bot-dispatcher
# The commit the image is built from (its context holds no .git): the build writes it into build-info.json
# beside main.js, with the app's version from its package.json, for /health/live and app_build_info.
ARG BUILD_COMMIT=unknown
RUN npx nx run bot-dispatcher:build --outputStyle=static

# --- prod-deps: runtime dependencies only, no install scripts ---------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /workspace
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# --max-old-space-size fixes V8's heap policy instead of deriving it from the memory V8 sees (the node's
# or the pod's): at 256 MB the old generation grows by at most 1.3x its live size between full collections
# (4x on a large host), which keeps the process under 250 MB resident after load (bench/README.md).
# The k8s Deployments set the same value; their memory limit must stay at 384 MiB or more (docs/operations.md#memory).
ENV NODE_ENV=production \
    PORT=3003 \
    NODE_OPTIONS="--enable-source-maps --max-old-space-size=256"
WORKDIR /app
COPY --from=prod-deps /workspace/node_modules ./node_modules
COPY --from=prod-deps /workspace/package.json ./package.json
COPY --from=build /workspace/dist/apps/bot-dispatcher ./dist
# The image's own files stay root-owned and read-only to the process; it runs as the unprivileged "node" user (uid 1000).
USER 1000:1000
EXPOSE 3003
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/apps/bot-dispatcher/src/main.js"]
