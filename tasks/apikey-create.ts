import path from "node:path";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { DataDirectory } from "../src/data-directory.js";
import { isTokenServiceError } from "../src/errors.js";
import { openStore } from "../src/server/store/open-store.js";

interface Args {
  label?: string;
  dataDir?: string;
  json?: boolean;
}

export default async function apiKeyCreate(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  const dataDir = args.dataDir ? path.resolve(args.dataDir) : hre.config.tokenService.dataDir;
  const dataDirectory = new DataDirectory(
    dataDir,
    "hardhat apikey:create",
    "the embedded database has one writer: stop the service, create the key, start it again; or give the service its keys in TOKEN_SERVICE_API_KEYS",
  );
  let store;
  try {
    store = await openStore({ dataDir, dataDirectory, ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}) });
  } catch (error) {
    if (!isTokenServiceError(error, "DATA_DIR_IN_USE")) throw error;
    console.error(`Error ${error.code}: ${error.message}`);
    process.exitCode = 1;
    return;
  }
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
    dataDirectory.release();
  }
}
