import "./production.js";
import { buildApp } from "./app.js";
import { ConfigError, loadConfig } from "./config.js";

async function main() {
  const config = loadConfig();
  const { server } = await buildApp(config, {
    onAdminCreated: ({ email, password }) => {
      // Printed once, on purpose, outside the logs: the only way to reach a brand-new install.
      process.stdout.write(
        `\nCreated the first admin account.\n  e-mail:   ${email}\n  password: ${password}\nSign in and change the password from the profile page.\n\n`,
      );
    },
  });

  const shutdown = (signal: string) => {
    server.log.info({ signal }, "shutting down");
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", () => {
    shutdown("SIGTERM");
  });
  process.once("SIGINT", () => {
    shutdown("SIGINT");
  });

  await server.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error("Start-up failed:", error);
  }
  process.exit(1);
});
