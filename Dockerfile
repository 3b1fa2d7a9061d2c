# The kandev-recovery worker image. Agents are npm packages run with npx, and they use git, so the
# runtime is Node.js 24 LTS (Debian bookworm) with Debian's Java 17 runtime, git and curl.
#
#   docker build -t kandev-recovery .                             the production image (no test agent)
#   docker build --target with-test-agent -t kandev-recovery:try .  plus the ACP test agent in /app/test-agent
#
# Stopping: SIGTERM makes the worker stop polling, then stop its agents (stdin closed, SIGTERM,
# SIGKILL, 5 s apart, all at once) and record them stopped. Give it the time: docker run
# --stop-timeout 60, compose stop_grace_period 60s, Kubernetes terminationGracePeriodSeconds 60
# (Docker's default of 10 s SIGKILLs it midway, and its agents count as lost).

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
# Dependencies first: this layer is reused until a pom changes.
COPY pom.xml ./
COPY workflows/pom.xml workflows/
COPY activities/pom.xml activities/
COPY worker/pom.xml worker/
RUN mvn -B -q dependency:go-offline
COPY . .
RUN mvn -B -q -DskipTests package

FROM node:24-bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jre-headless git curl ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --create-home --home-dir /home/kandev kandev \
 && mkdir -p /var/lib/kandev-recovery /var/cache/kandev-npm /workspaces \
 && chown kandev:kandev /var/lib/kandev-recovery /var/cache/kandev-npm /workspaces
WORKDIR /app
COPY --from=build /src/worker/target/lib /app/lib
COPY --from=build /src/worker/target/kandev-recovery.jar /app/kandev-recovery.jar
# The CLI starters' quick launcher: docker exec <container> /app/kandev-recovery resume s-1 (docs/cli.md).
COPY --from=build /src/bin/kandev-recovery /app/kandev-recovery
USER kandev
# The HTTP endpoint listens on loopback unless told otherwise; in a container it must be reachable
# from the host's published port, so every interface of the container's own network.
ENV KANDEV_STATE_DIR=/var/lib/kandev-recovery \
    KANDEV_HTTP_PORT=9464 \
    KANDEV_HTTP_ADDRESS=0.0.0.0
EXPOSE 9464
# Ready: PostgreSQL and Temporal answer and the worker polls (docs/operations.md, Metrics and health).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${KANDEV_HTTP_PORT}/readyz" >/dev/null || exit 1
# The heap follows the container's memory limit: 40 % of it, the rest for the agents (Node.js
# processes in the same container) and the JVM's own memory. An OutOfMemoryError ends the process
# (the container restarts) instead of leaving a half-working worker.
ENTRYPOINT ["java", "-XX:InitialRAMPercentage=10", "-XX:MaxRAMPercentage=40", "-XX:+ExitOnOutOfMemoryError", \
  "-jar", "/app/kandev-recovery.jar"]
CMD ["worker"]

# For trying it out (docker-compose.yml mounts the agent instead): the ACP test agent, /app/test-agent.
FROM runtime AS with-test-agent
COPY --from=build --chown=kandev:kandev /src/test-agent /app/test-agent

# The default target (the last stage): the production image, without the test agent.
FROM runtime AS production
