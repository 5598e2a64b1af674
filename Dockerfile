# Build stage: all dependencies, then `npm run build` compiles the TypeScript to dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are copied; the build is the next step.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
COPY seeds ./seeds
RUN npm run build

# Runtime stage: production dependencies only, the compiled code and the files it reads; non-root.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` builds, which needs the dev dependencies; dist/ comes from the build stage.
# npm's cache and logs (/root/.npm, tens of MB) go in the same layer, so the image does not keep them.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && rm -rf /root/.npm
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY wsdl ./wsdl
COPY seeds/data ./seeds/data
# Without DATABASE_URL the embedded database lives here (/app is root's): a folder the node user
# owns, writable by root's group too, which is the group of a uid the image does not know
# (docker run --user 12345, as OpenShift runs images). The files svapi writes in it are its
# user's only. Mount a volume on it to keep that database: -v svapi-data:/home/node/.svapi-data
ENV SVAPI_DATA_DIR=/home/node/.svapi-data
RUN install -d -o node -g 0 -m 0770 /home/node/.svapi-data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/svapi.js"]
CMD ["serve"]
