/**
 * One HTTP GET, as lifecycle hooks send it (Go's handlers.go): any answer is a success, so only
 * the status comes back; a transport error rejects. Real: src/adapters/http/http-get.ts.
 */
export type HttpGet = (url: string, headers: Record<string, string>) => Promise<number>;
