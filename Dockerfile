# The kandev-recovery worker image. Agents are npm packages run with npx, and they use git,
# so the runtime image carries Node.js, npm and git next to the JRE.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests package

FROM eclipse-temurin:17-jre
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm git curl ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /src/worker/target/kandev-recovery.jar /app/kandev-recovery.jar
COPY --from=build /src/worker/target/lib /app/lib
COPY --from=build /src/test-agent /app/test-agent
ENTRYPOINT ["java", "-jar", "/app/kandev-recovery.jar"]
CMD ["worker"]
