// The C++ wrapper's refresh-token callbacks live as long as anything that can call them:
// a Pager that outlives its Client (destroyed, or given up by a move-assignment) still
// refreshes, and its refresh calls the function given to on_refresh_token, which must
// still be alive (valgrind reports the use after free the wrapper had). Against the
// sandbox that rotates refresh tokens and issues two-second access tokens, from a token
// family of its own (ABWS_TEST_ROTATING_SETTINGS_3).
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "abws.hpp"

#include "common.hpp"

struct Store {
    std::mutex lock;
    std::vector<std::string> tokens;
    std::size_t count() {
        std::lock_guard<std::mutex> guard(lock);
        return tokens.size();
    }
};

static void run() {
    const std::string settings = env("ABWS_TEST_ROTATING_SETTINGS_3");
    // What the callbacks capture is owned by them (a shared_ptr), as it must live as long.
    auto first = std::make_shared<Store>();
    auto second = std::make_shared<Store>();
    std::optional<abws::Pager> destroyed_client_pager;
    std::optional<abws::Pager> moved_client_pager;
    {
        abws::Client client(settings);
        client.on_refresh_token([first](const std::string &t) {
            std::lock_guard<std::mutex> guard(first->lock);
            first->tokens.push_back(t);
        });
        CHECK(!client.cart().list_carts("{}").empty(), "a first call");
        destroyed_client_pager.emplace(client.cart().iter_carts(R"({"page_size":1})"));
        CHECK(destroyed_client_pager->next().has_value(), "page 1");

        // A client move-assigned over: the callbacks of the client it replaces stay alive
        // for that client's pager.
        abws::Client other(settings);
        other.on_refresh_token([second](const std::string &t) {
            std::lock_guard<std::mutex> guard(second->lock);
            second->tokens.push_back(t);
        });
        moved_client_pager.emplace(other.cart().iter_carts(R"({"page_size":1})"));
        CHECK(moved_client_pager->next().has_value(), "page 1 of the other");
        other = abws::Client(settings);  // no request: the new client has no callback
    }  // both clients destroyed
    std::size_t before_first = first->count(), before_second = second->count();
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // the access tokens expire
    CHECK(destroyed_client_pager->next().has_value(), "page 2 after the client was destroyed");
    // Two each: the clients share one token family, and each pager's refresh token was consumed
    // by the other client's refresh since; a refresh then hands over the successor it takes
    // from the process, then the token the server rotates when it sends that successor.
    CHECK(first->count() == before_first + 2,
          "the pager's refresh reached the destroyed client's callback: " << first->count() - before_first);
    CHECK(moved_client_pager->next().has_value(), "page 2 after the client was moved over");
    CHECK(second->count() == before_second + 2,
          "the pager's refresh reached the replaced client's callback: " << second->count() - before_second);
    destroyed_client_pager.reset();
    moved_client_pager.reset();
    // The pagers held the last references to the functions: they are gone now.
    CHECK(first.use_count() == 1 && second.use_count() == 1,
          "callbacks released with the pagers: " << first.use_count() << ", " << second.use_count());
}

int main() {
    try {
        run();
    } catch (const abws::Error &e) {
        failures++;
        std::cerr << "FAIL: abws::Error " << e.kind() << ": " << e.what() << "\n";
    }
    std::size_t clients = 1, pagers = 1, errors = 1, strings = 1;
    abws_live_objects(&clients, &pagers, &errors, &strings);
    CHECK(clients + pagers + errors + strings == 0, "objects left");
    if (failures) {
        std::cerr << "wrapper_pager_lifetime: " << failures << " of " << checks << " checks failed\n";
        return 1;
    }
    std::cout << "wrapper_pager_lifetime: a Pager outliving its Client (destroyed, moved over) refreshed "
                 "through the Client's callback, kept alive by the Pager; "
              << checks << " checks passed\n";
    return 0;
}
