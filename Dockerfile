# The kandev-recovery worker image. Agents are npm packages run with npx, and they use git, so the
# runtime is Node.js 24 LTS (Debian bookworm) with Debian's Java 17 runtime, git and curl.

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

FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jre-headless git curl ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --create-home --home-dir /home/kandev kandev \
 && mkdir -p /var/lib/kandev-recovery /var/cache/kandev-npm /workspaces \
 && chown kandev:kandev /var/lib/kandev-recovery /var/cache/kandev-npm /workspaces
WORKDIR /app
COPY --from=build /src/worker/target/lib /app/lib
COPY --from=build /src/worker/target/kandev-recovery.jar /app/kandev-recovery.jar
COPY --from=build /src/test-agent /app/test-agent
USER kandev
ENV KANDEV_STATE_DIR=/var/lib/kandev-recovery
ENTRYPOINT ["java", "-jar", "/app/kandev-recovery.jar"]
CMD ["worker"]
