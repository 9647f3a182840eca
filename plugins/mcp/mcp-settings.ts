import { localhostAllowedHostnames, localhostAllowedOrigins } from "@modelcontextprotocol/server";
import type { SvcConfig } from "../../kernel/config.js";
import { readEnvironment, str } from "../../kernel/environment.js";

/** Where `POST /mcp` may be called from. */
export interface McpSettings {
  readonly allowedHosts: readonly string[] | "any";
  readonly allowedOrigins: readonly string[];
}

/**
 * `MCP_ALLOWED_HOSTS` / `MCP_ALLOWED_ORIGINS`. Unset: loopback names (`localhost`, `127.0.0.1`,
 * `[::1]`) plus the `HOST` the app listens on; in production any `Host`, since a deployed API is
 * reached by its public name and its tools need the caller's token anyway.
 *
 * @example
 * mcpSettings(loadConfig({ MCP_ALLOWED_HOSTS: "api.example.com" })).allowedHosts; // ["api.example.com"]
 */
export function mcpSettings(config: SvcConfig): McpSettings {
  const env = readEnvironment(config.env, {
    MCP_ALLOWED_HOSTS: str({ default: "" }),
    MCP_ALLOWED_ORIGINS: str({ default: "" }),
  });
  const listed = (value: string) => value.split(",").map((item) => item.trim()).filter(Boolean);
  const listen = config.host && !["0.0.0.0", "::"].includes(config.host) ? [config.host.includes(":") ? `[${config.host}]` : config.host] : [];
  const hosts = listed(env.MCP_ALLOWED_HOSTS);
  const allowedHosts = hosts.includes("*") ? "any" : hosts.length > 0 ? hosts : config.isProduction ? "any" : [...new Set([...localhostAllowedHostnames(), ...listen])];
  const origins = listed(env.MCP_ALLOWED_ORIGINS);
  return { allowedHosts, allowedOrigins: origins.length > 0 ? origins : localhostAllowedOrigins() };
}
