import path from "node:path";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { EnvironmentError, readVariable } from "../../config/environment.js";
import { openStore } from "../../store/open-store.js";
import { makePrivate } from "./support/private-files.js";
import { pluginError } from "./support/plugin-error.js";

interface Args {
  label?: string;
  dataDir?: string;
  json?: boolean;
}

/** Works beside a running `serve`: the embedded store takes a second writer, and the service reads keys from it on every call. */
export default async function apiKeyCreate(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  const dataDir = args.dataDir ? path.resolve(args.dataDir) : hre.config.tokenService.dataDir;
  // The database it may create holds key hashes: the store creates it readable by this user only.
  let databaseUrl: string | undefined;
  try {
    databaseUrl = readVariable(process.env, "DATABASE_URL");
  } catch (error) {
    throw error instanceof EnvironmentError ? pluginError(error.message, error) : error;
  }
  const store = await openStore({ dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
  try {
    const created = await store.createApiKey(args.label);
    if (args.json) {
      console.log(JSON.stringify({ id: created.id, key: created.key, label: args.label ?? null }, null, 2));
      return;
    }
    console.log(`API key ${created.id}${args.label ? ` (${args.label})` : ""} stored in ${store.kind} ${store.location}`);
    console.log(`  ${created.key}`);
    console.log("Shown once: only its hash is stored.");
  } finally {
    await store.close();
    await makePrivate(dataDir);
  }
}
