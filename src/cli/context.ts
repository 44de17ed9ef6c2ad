import type { ProjectConfig } from '../project/config/config.js';
import type { EngineClient } from '../client/engine-client.js';
import { VERSION } from '../version.js';
import type { GlobalFlags } from './globals.js';
import type { Output } from './output.js';

export interface ConfigNeeds {
  project: boolean;
  version2?: boolean;
  /** Offline commands must not fail on settings only the engine connection uses (cli.md §2.4). */
  offline?: boolean;
}

/** The configuration of a command (cli.md §2), its warnings shown; loaded lazily so start-up stays light. */
export async function projectConfig(g: GlobalFlags, out: Output, needs: ConfigNeeds): Promise<ProjectConfig> {
  const [{ loadConfig }, { fallbackMessage }] = await Promise.all([import('../project/config/config.js'), import('../project/config/environment.js')]);
  const config = loadConfig({
    project: g.project, envfile: g.envfile, endpoint: g.endpoint, adminSecret: g.adminSecret, timeout: g.timeout,
    logLevel: g.logLevel, requireProject: needs.project, requireVersion2: needs.version2 ?? false, offline: needs.offline ?? false,
  });
  for (const w of config.warnings) out.warn(w.code, w.file ? `${w.file}:${w.line}:${w.column}: ${w.message}` : w.message);
  const fallbacks = fallbackMessage(config.fallbacks());
  if (fallbacks) out.logger.debug(fallbacks);
  return config;
}

/** The HTTP client for the engine the configuration names. */
export async function engineClient(config: ProjectConfig, out: Output, g: GlobalFlags): Promise<EngineClient> {
  const [{ EngineClient }, { tlsSettings }] = await Promise.all([import('../client/engine-client.js'), import('../project/config/tls.js')]);
  const tls = tlsSettings(g);
  return new EngineClient({
    endpoint: config.endpoint, adminSecret: config.adminSecret, timeoutSeconds: config.timeoutSeconds, logger: out.logger, version: VERSION,
    ...(tls ? { tls } : {}),
  });
}

/** What every engine-facing command needs: the configuration and a client. */
export async function context(g: GlobalFlags, out: Output, needs: ConfigNeeds): Promise<{ config: ProjectConfig; client: EngineClient }> {
  const config = await projectConfig(g, out, needs);
  return { config, client: await engineClient(config, out, g) };
}
