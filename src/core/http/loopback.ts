/** Whether a URL's host is a loopback address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  host = host.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' ||
    /^127(\.\d{1,3}){3}$/.test(host) ||
    host === '::1' ||
    /^::ffff:127(\.\d{1,3}){3}$/.test(host) ||
    /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host)
  );
}
