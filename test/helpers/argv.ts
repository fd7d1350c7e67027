// Command lines several tests share; each test adds the flags that make it what it is.

/** `pay --redirect` flags for one Kaos at Rp 1.000, with loopback notify and return URLs where nothing listens. */
export const REDIRECT_KAOS = ['--item', 'Kaos:1:1000', '--notify-url', 'http://127.0.0.1:9/cb', '--return-url', 'http://127.0.0.1:9/ok'];

/** The start of a `pay` by VA (BCA unless `channel` says) for a buyer (A, 08123456789, a@b.co unless said); tests add the item, notify URL and rest. */
export const payVa = ({ channel = 'bca', name = 'A', phone = '08123456789', email = 'a@b.co' } = {}) => [
  'pay',
  '--method',
  'va',
  '--channel',
  channel,
  '--name',
  name,
  '--phone',
  phone,
  '--email',
  email,
];
