/* What the C++ test programs share: the check counters, CHECK, and the settings the test
 * script passes in the environment. */
#pragma once

#include <cstdlib>
#include <iostream>
#include <string>

static int failures = 0;
static int checks = 0;

#define CHECK(cond, what)                                                                  \
    do {                                                                                   \
        checks++;                                                                          \
        if (!(cond)) {                                                                     \
            failures++;                                                                    \
            std::cerr << "FAIL " << __FILE__ << ":" << __LINE__ << ": " << #cond << ": "  \
                      << what << "\n";                                                     \
        }                                                                                  \
    } while (0)

static std::string env(const char *name) {
    const char *v = std::getenv(name);
    if (v == nullptr) {
        std::cerr << "missing " << name << " (run scripts/test-c.sh)\n";
        std::exit(2);
    }
    return v;
}
