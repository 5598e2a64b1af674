# syntax=docker/dockerfile:1
# Build stage: production dependencies only (TypeScript runs through tsx, a runtime dependency).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# npm install, not npm ci: the lock file may lack other platforms' optional packages (see .ci/run).
RUN npm install --omit=dev --no-audit --no-fund

# Runtime stage: non-root, no build tools, no dev dependencies.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
COPY seeds ./seeds
COPY wsdl ./wsdl
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/svapi.js"]
CMD ["serve"]
