# Image for every fleetflow process (api, worker, simulator, migrate); docker-compose picks the command.
FROM node:24-slim

WORKDIR /app

# Dependencies first, so source changes do not invalidate the npm layer.
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund && npm cache clean --force

COPY . .

ENV NODE_ENV=production
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
