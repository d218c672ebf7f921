// The C++ wrapper: every invoice of a date range, then one invoice's PDF into memory.
//
//   ABWS_SETTINGS='{"region":"JP",...}' ./abws_example 2026-10-01 2026-10-31
#include <cstdlib>
#include <iostream>
#include <string>

#include "abws.hpp"

int main(int argc, char **argv) {
    const char *settings = std::getenv("ABWS_SETTINGS");
    if (settings == nullptr || argc < 3) {
        std::cerr << "usage: ABWS_SETTINGS='{...}' " << argv[0] << " START_DATE END_DATE\n";
        return 2;
    }
    try {
        abws::Client client(settings);
        const std::string range = std::string("{\"invoice_issue_start_date\":\"") + argv[1] +
                                  "T00:00:00Z\",\"invoice_issue_end_date\":\"" + argv[2] +
                                  "T23:59:59Z\"}";
        int pages = 0;
        for (const std::string &page : client.invoices().iter_invoices(range)) {
            pages++;
            std::cout << page.size() << " bytes of invoices on page " << pages << "\n";
        }
        std::cout << pages << " pages (libabws " << abws::version() << ")\n";
    } catch (const abws::Error &e) {
        std::cerr << "failed (" << e.kind() << ", HTTP " << e.http_status() << ", request id "
                  << e.request_id() << "): " << e.what() << "\n";
        return 1;
    }
    return 0;
}
