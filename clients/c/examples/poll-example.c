/* Navigator "main" (home, detail) in a poll() loop: prints each back, pushes the page again. */
#include <poll.h>
#include <stdio.h>
#include <popgesture.h>

static void on_back(pg_client *client, void *user, const char *navigator, const char *popped,
                    const char *top, int64_t time_us)
{
    (void)user, (void)time_us;
    printf("back: %s -> %s\n", popped, top);
    fflush(stdout);
    pg_page page = {.id = popped}; /* as if the user opened the page again */
    pg_push(client, navigator, &page, false);
}

static void on_connection(pg_client *client, void *user, bool connected, const char *reason)
{
    (void)client, (void)user;
    fprintf(stderr, "%s%s\n", connected ? "connected" : "not connected, retrying: ", connected ? "" : reason);
}

int main(void)
{
    pg_callbacks callbacks = {.on_back = on_back, .on_connection = on_connection};
    pg_options options = {.app_id = "org.example.Files", .name = "poll-example", .callbacks = &callbacks};
    pg_client *client = pg_client_new(&options); /* socket: $POPGESTURED_SOCKET, else the system's */
    if (!client)
        return perror("pg_client_new"), 1;
    pg_page pages[] = {{.id = "home"}, {.id = "detail"}};
    pg_create(client, "main", pages, 2, NULL); /* queued now, sent after hello */
    for (;;) {
        struct pollfd p = {.fd = pg_client_fd(client), .events = pg_client_events(client)};
        poll(&p, 1, pg_client_next_timeout_ms(client)); /* fd -1 while reconnecting: only the timeout */
        pg_client_dispatch(client);
    }
}
