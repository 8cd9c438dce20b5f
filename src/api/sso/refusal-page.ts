// The page a refused single sign-on shows: a plain, script-free HTML page that says why and links
// back to the sign-in page. The text is escaped; it never carries a token, a code or a claim value
// other than the user name the person typed at their provider.
import type { FastifyReply } from 'fastify';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export function refusalPage(reply: FastifyReply, status: number, detail: string) {
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in refused · Gatehouse</title></head>
<body><main><h1>Sign-in refused</h1><p id="reason">${escapeHtml(detail)}</p>
<p><a href="/login">Back to the sign-in page</a></p></main></body></html>
`;
  return reply
    .code(status)
    .header('content-security-policy', "default-src 'none'; frame-ancestors 'none'")
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(body);
}
