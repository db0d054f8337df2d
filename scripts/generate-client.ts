// Writes the typed client's OpenAPI types (src/client/openapi.d.ts); test/client-types.test.ts checks they are current.
import { writeFile } from "node:fs/promises";
import path from "node:path";

import { GENERATED_TYPES_FILE, generateClientTypes } from "../src/client/generate-types.js";

await writeFile(path.resolve(import.meta.dirname, "..", GENERATED_TYPES_FILE), await generateClientTypes());
