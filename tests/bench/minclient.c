/* SPDX-License-Identifier: Apache-2.0 */
/* The `hook` scenario's baseline: the least a client process can do for one
 * auto-allowed call. Plain sockets, no JSON library, no handshake check:
 * connect, upgrade, hello, tool_call, read frames until the decision, print
 * it, exit. Usage: minclient PORT TOKEN CALL_ID */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fd;

static void sendText(const char *s)
{
    size_t n = strlen(s), h = 6;
    unsigned char *f = malloc(n + 14);
    f[0] = 0x81;
    if (n < 126) { f[1] = 0x80 | n; } else { f[1] = 0x80 | 126; f[2] = n >> 8; f[3] = n & 0xff; h = 8; }
    memset(f + h - 4, 0, 4); /* a zero mask: the payload goes as it is */
    memcpy(f + h, s, n);
    send(fd, f, h + n, 0);
    free(f);
}

static int readAll(char *p, size_t n)
{
    for (ssize_t r; n > 0; p += r, n -= (size_t)r)
        if ((r = recv(fd, p, n, 0)) <= 0) return -1;
    return 0;
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
    char buf[65536];
    int n = snprintf(buf, sizeof buf, "GET / HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", argv[1]);
    send(fd, buf, (size_t)n, 0);
    for (size_t got = 0; !(got >= 4 && !memcmp(buf + got - 4, "\r\n\r\n", 4));) /* the 101, byte by byte */
        if (recv(fd, buf + got++, 1, 0) != 1) return 2;
    snprintf(buf, sizeof buf, "{\"type\":\"hello\",\"protocol\":1,\"role\":\"agent\",\"token\":\"%s\",\"agent\":{\"name\":\"minclient\"},"
             "\"session_id\":\"minclient\"}", argv[2]);
    sendText(buf);
    snprintf(buf, sizeof buf, "{\"type\":\"tool_call\",\"call_id\":\"%s\",\"tool_name\":\"bench_op\",\"args\":{\"n\":1}}", argv[3]);
    sendText(buf);
    for (;;) { /* frames until the decision; the console's frames are unmasked and short */
        unsigned char h[8];
        if (readAll((char *)h, 2)) return 2;
        size_t len = h[1] & 0x7f;
        if (len == 126) { if (readAll((char *)h + 2, 2)) return 2; len = (size_t)h[2] << 8 | h[3]; }
        if (len >= sizeof buf || readAll(buf, len)) return 2;
        buf[len] = 0;
        if (strstr(buf, "\"type\":\"decision\"")) { puts(buf); return 0; }
    }
}
