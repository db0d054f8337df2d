import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

import { HttpErrorCode, httpStatusOf, type ErrorBody } from "./http-errors.js";

interface ParserError extends Error {
  code?: string;
  /** The bytes the parser had when it gave up. */
  rawPacket?: Buffer;
}

type InFlightResponse = { headersSent?: boolean; req?: { method?: string } };

/** What node's HTTP parser and connection checks report, in the service's error shape. */
function describe(error: ParserError): { status: number; body: ErrorBody } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        status: httpStatusOf(HttpErrorCode.HEADERS_TOO_LARGE),
        body: { error: { code: HttpErrorCode.HEADERS_TOO_LARGE, message: "the request headers are larger than 16 KiB", field: "headers" } },
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        status: httpStatusOf(HttpErrorCode.REQUEST_TIMEOUT),
        body: {
          error: {
            code: HttpErrorCode.REQUEST_TIMEOUT,
            message: "the request was not received in time; send headers and body without pausing",
          },
        },
      };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return {
        status: httpStatusOf(HttpErrorCode.PAYLOAD_TOO_LARGE),
        body: { error: { code: HttpErrorCode.PAYLOAD_TOO_LARGE, message: "the chunk extensions are too large", field: "body" } },
      };
    default:
      return {
        status: httpStatusOf(HttpErrorCode.MALFORMED_REQUEST),
        body: { error: { code: HttpErrorCode.MALFORMED_REQUEST, message: "the request is not valid HTTP/1.1" } },
      };
  }
}

/**
 * The 'clientError' listener: answers what the parser refused with a JSON error
 * and closes the connection, as node's default listener does with a bare status line.
 */
export function answerClientError(error: ParserError, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: InFlightResponse })._httpMessage;
  // A reset connection, or one whose response has started, cannot take an answer.
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, body } = describe(error);
  const payload = JSON.stringify(body);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(payload)}`,
    "Connection: close",
  ];
  // A response to HEAD has headers only; a client would read the body as the next response.
  const isHead = inFlight?.req?.method === "HEAD" || error.rawPacket?.subarray(0, 5).toString("latin1") === "HEAD ";
  socket.end(`${head.join("\r\n")}\r\n\r\n${isHead ? "" : payload}`, () => socket.destroy());
}
