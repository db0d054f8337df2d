import { readFile } from "node:fs/promises";
import path from "node:path";

import { invalidArgument } from "../../../domain/errors.js";

const SHAPE = 'a JSON array such as \'[{"to":"0x…","amount":"10"}]\', or the path of a JSON file holding one';

function parsed(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // JSON.parse says where it stopped ("Unexpected token ] in JSON at position 12"), which is what a person fixes.
    throw invalidArgument("recipients", `${where} is not valid JSON (${(error as Error).message}): give ${SHAPE}`);
  }
}

/**
 * `--recipients`: the batch as typed, inline (it starts with `[`) or in a JSON file (relative to the directory the task
 * runs in, as a shell resolves it). Only the JSON is read here: what the array must hold (its length, each recipient's
 * fields) is the core's rule, checked where every door's mint request is parsed.
 */
export async function readRecipientsOption(text: string, cwd = process.cwd()): Promise<unknown> {
  if (text.trim().startsWith("[")) return parsed(text, "--recipients");
  if (text.trim() === "") throw invalidArgument("recipients", `--recipients is empty: give ${SHAPE}`);
  const file = path.resolve(cwd, text);
  let contents: string;
  try {
    contents = await readFile(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "there is no such file" : (error as Error).message;
    throw invalidArgument("recipients", `--recipients ${text}: ${reason} (${file}); give ${SHAPE}`);
  }
  return parsed(contents, `--recipients file ${text}`);
}
