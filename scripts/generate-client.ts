// Writes the typed client's OpenAPI types (src/client/openapi.d.ts); test/client.test.ts checks they are current.
import { writeFile } from "node:fs/promises";
import path from "node:path";

import { GENERATED_TYPES_FILE, generateClientTypes } from "./client-types.js";

await writeFile(path.resolve(import.meta.dirname, "..", GENERATED_TYPES_FILE), await generateClientTypes());
