# The kandev-recovery worker image. Agents are npm packages run with npx, and they use git,
# so the runtime image is Node.js 20 (Debian bookworm) with a Java 17 runtime, git and curl.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests package

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jre-headless git curl ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /src/worker/target/kandev-recovery.jar /app/kandev-recovery.jar
COPY --from=build /src/worker/target/lib /app/lib
COPY --from=build /src/test-agent /app/test-agent
ENTRYPOINT ["java", "-jar", "/app/kandev-recovery.jar"]
CMD ["worker"]
