// popgesture.h from C++: it compiles with -pedantic, links (extern "C"), and works.
#include "popgesture.h"

#include <cerrno>
#include <cstdio>

namespace {
int failures = 0;
void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "cxx_smoke: %s\n", what);
        failures++;
    }
}
}

int main()
{
    pg_callbacks callbacks = {};
    pg_options options = {};
    options.socket_path = "/nonexistent/popgesture-cxx.sock";
    options.callbacks = &callbacks;
    pg_client *client = pg_client_new(&options);
    check(client != nullptr, "pg_client_new failed");
    if (!client)
        return 1;
    check(pg_client_fd(client) == -1, "no socket expected");
    pg_page page = {};
    page.id = "home";
    check(pg_create(client, "main", &page, 1, nullptr) != 0, "pg_create refused a request");
    check(pg_create(client, nullptr, &page, 1, nullptr) == 0 && errno == EINVAL, "NULL navigator accepted");
    check(pg_client_dispatch(client) == 0, "dispatch failed");
    pg_client_free(client);
    if (failures == 0)
        std::puts("cxx_smoke: popgesture.h works from C++");
    return failures == 0 ? 0 : 1;
}
