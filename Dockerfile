# paycli's gateway emulator as a service: `docker build -t paycli .` then
#   docker run --rm -p 4010:4010 paycli                # the emulator on port 4010, state in /data
#   docker run --rm paycli --help                      # any other paycli command
# Settings come from PAYCLI_SANDBOX_* variables (PAYCLI_SANDBOX_PORT, _VA, _API_KEY_FILE, …); a flag
# wins. The health check is `paycli sandbox health` (no curl in the image). docs/containers.md.
ARG NODE_VERSION=22

# ── build: compile TypeScript, bundle, and build better-sqlite3 (its prebuilt binary when it can
# be downloaded, else compiled with the image's python3/make/g++ against the image's Node headers)
FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY bin ./bin
COPY completions ./completions
COPY README.md LICENSE ./
RUN npm rebuild better-sqlite3 --nodedir=/usr/local \
 && npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf src scripts tsconfig.json node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
    node_modules/better-sqlite3/build/Release/obj* node_modules/better-sqlite3/build/Release/.deps

# ── runtime: Node, paycli and its production dependencies; a non-root user; state in a volume
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    PAYCLI_SANDBOX_HOST=0.0.0.0 \
    PAYCLI_SANDBOX_PORT=4010 \
    PAYCLI_SANDBOX_DATA_DIR=/data \
    XDG_CACHE_HOME=/tmp/paycli-cache
COPY --from=build /build /opt/paycli
RUN ln -s /opt/paycli/bin/paycli.js /usr/local/bin/paycli \
 && mkdir -p /data && chown node:node /data
USER node
WORKDIR /home/node
VOLUME ["/data"]
EXPOSE 4010
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["paycli", "sandbox", "health"]
ENTRYPOINT ["paycli"]
CMD ["sandbox"]
