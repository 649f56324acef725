# Image for every fleetflow process (api, worker, simulator, migrate); docker-compose picks the command.
FROM node:24-slim

WORKDIR /app

# Dependencies first, so source changes do not invalidate the npm layer.
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund && npm cache clean --force

COPY . .

# The worker generates its workflow bundle's entry from the domain list into node_modules/.cache/fleetflow.
RUN mkdir -p node_modules/.cache/fleetflow && chown node node_modules/.cache/fleetflow

ENV NODE_ENV=production
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
