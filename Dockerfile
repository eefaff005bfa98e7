# The podops operator image: `docker build -t podops:0.1.0 .`, then `podops manifests | kubectl apply -f -`
# (or the Helm chart in deploy/helm/podops).
FROM node:24-bookworm-slim AS build
WORKDIR /app
# npm ci installs the workspace packages too, so it needs the sandbox's package.json.
COPY package.json package-lock.json ./
COPY packages/sandbox/package.json ./packages/sandbox/
# The image already has Node 24: skip the pinned `node` devDependency's install script.
RUN npm ci --ignore-scripts
# podops compiles against the sandbox's declarations (the commands that load it, `podops up` and `podops
# sandbox`, import its types), so the sandbox is built here; none of it reaches the image below.
COPY tsconfig.base.json tsconfig.build.json ./
COPY packages/sandbox/tsconfig.json packages/sandbox/tsconfig.build.json ./packages/sandbox/
COPY packages/sandbox/src ./packages/sandbox/src
COPY src ./src
COPY examples ./examples
# npm counts the dependencies of a workspace as production ones, whoever depends on it: without the workspaces,
# the sandbox is the devDependency it is for podops, and the prune removes it with its dependencies.
RUN npm run build && npm pkg delete workspaces && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
# A young generation of at most 3 x 16 MiB: V8 would otherwise grow it to 128 MiB under the watch
# traffic of a large cluster, and its collections would stall admission answers (webhook p99 at 1,000
# reviews/s: 7 ms without, 1 ms with). --optimize-for-size keeps the heap close to what is live: about
# 25% less resident memory with 10,000 pods, for 25-30% more CPU per admission review
# (npm run bench -- operator webhook; docs/operations.md, Memory, has the alternative).
ENTRYPOINT ["node", "--max-semi-space-size=16", "--optimize-for-size", "dist/src/cli/main.js"]
CMD ["operator", "--leader-elect"]
