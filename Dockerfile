# One image for every role of the service; ROLE picks what a container runs.
FROM node:24-bookworm-slim AS base
WORKDIR /app
COPY package.json package-lock.json ./
# The lock file is complete (see README, "What the first run installs"); no dependency needs its install script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY . .
ENV HOST=0.0.0.0 NODE_ENV=production
# glibc's malloc thresholds pinned at their defaults, as `npm start` does (docs/operating.md, "Memory").
ENV MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
CMD ["node", "--experimental-strip-types", "--disable-warning=ExperimentalWarning", "workers/all.ts"]

# The media pool runs ffmpeg.
FROM base AS media
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*
