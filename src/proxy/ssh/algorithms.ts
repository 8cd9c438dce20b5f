// Ciphers the proxy offers on both legs. SSH uses the first of the *client's* preferences that the
// server supports, and OpenSSH prefers chacha20-poly1305; AES-GCM runs in OpenSSL with AES-NI here and
// moves more bytes per core, so the proxy offers only AEAD ciphers and GCM first (see README, bench).
export const CIPHERS = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'chacha20-poly1305@openssh.com'];
