/* SPDX-License-Identifier: Apache-2.0 */
/* The `hook` scenario's baseline: the least a client process can do for one
 * auto-allowed call, in the order the protocol asks of every client: connect,
 * upgrade, hello, wait for the welcome, tool_call (masked with a random key,
 * RFC 6455 §5.3), read frames until the decision, print it, exit. Plain
 * sockets, no JSON library. It does not check Sec-WebSocket-Accept (one
 * SHA-1 of 60 bytes, a few microseconds in the front): that would take a SHA-1
 * of its own here, for no measurable difference. Usage: minclient PORT TOKEN CALL_ID */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

static int fd;

static void sendText(const char *s)
{
    size_t n = strlen(s), h = 6;
    unsigned char *f = malloc(n + 14);
    f[0] = 0x81;
    if (n < 126) { f[1] = 0x80 | n; } else { f[1] = 0x80 | 126; f[2] = n >> 8; f[3] = n & 0xff; h = 8; }
    if (getrandom(f + h - 4, 4, 0) != 4) exit(2);
    for (size_t i = 0; i < n; ++i) f[h + i] = (unsigned char)s[i] ^ f[h - 4 + i % 4];
    send(fd, f, h + n, 0);
    free(f);
}

static int readAll(char *p, size_t n)
{
    for (ssize_t r; n > 0; p += r, n -= (size_t)r)
        if ((r = recv(fd, p, n, 0)) <= 0) return -1;
    return 0;
}

static char buf[65536];

/* Frames until a message containing `what`, left in buf; the console's frames
 * are unmasked and short. */
static int readUntil(const char *what)
{
    for (;;) {
        unsigned char h[8];
        if (readAll((char *)h, 2)) return -1;
        size_t len = h[1] & 0x7f;
        if (len == 126) { if (readAll((char *)h + 2, 2)) return -1; len = (size_t)h[2] << 8 | h[3]; }
        if (len >= sizeof buf || readAll(buf, len)) return -1;
        buf[len] = 0;
        if (strstr(buf, what)) return 0;
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1]))};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a)) return 2;
    int n = snprintf(buf, sizeof buf, "GET / HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", argv[1]);
    send(fd, buf, (size_t)n, 0);
    for (size_t got = 0; !(got >= 4 && !memcmp(buf + got - 4, "\r\n\r\n", 4));) /* the 101, byte by byte */
        if (recv(fd, buf + got++, 1, 0) != 1) return 2;
    snprintf(buf, sizeof buf, "{\"type\":\"hello\",\"protocol\":1,\"role\":\"agent\",\"token\":\"%s\",\"agent\":{\"name\":\"minclient\"},"
             "\"session_id\":\"minclient\"}", argv[2]);
    sendText(buf);
    if (readUntil("\"type\":\"welcome\"")) return 2;
    snprintf(buf, sizeof buf, "{\"type\":\"tool_call\",\"call_id\":\"%s\",\"tool_name\":\"bench_op\",\"args\":{\"n\":1}}", argv[3]);
    sendText(buf);
    if (readUntil("\"type\":\"decision\"")) return 2;
    puts(buf);
    return 0;
}
