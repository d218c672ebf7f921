// An ERP sync through the C++ wrapper: post every invoice of a date range to the ERP's
// ledger, then match the period's business transactions against it.
//
//   ABWS_SETTINGS='{"region":"JP",...}' ./erp_sync 2026-10-01 2026-10-31
//
// The ERP side is an in-memory map here; a real plugin would write to its own tables.
// Results are JSON in the wire form; a plugin would use its JSON library — this example
// only needs a few string values, so it scans for them.
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "abws.hpp"

namespace {

// Every string value of `"key":"..."` in `json`, in order.
std::vector<std::string> values_of(const std::string &json, const std::string &key) {
    std::vector<std::string> out;
    const std::string pattern = "\"" + key + "\":\"";
    for (auto p = json.find(pattern); p != std::string::npos; p = json.find(pattern, p)) {
        p += pattern.size();
        const auto end = json.find('"', p);
        out.push_back(json.substr(p, end - p));
        p = end;
    }
    return out;
}

struct LedgerEntry {
    std::string detail_json;
    int transactions = 0;
};

}  // namespace

int main(int argc, char **argv) {
    const char *settings = std::getenv("ABWS_SETTINGS");
    if (settings == nullptr || argc < 3) {
        std::cerr << "usage: ABWS_SETTINGS='{...}' " << argv[0] << " START_DATE END_DATE\n";
        return 2;
    }
    try {
        abws::Client client(settings);
        const std::string from = std::string(argv[1]) + "T00:00:00Z";
        const std::string to = std::string(argv[2]) + "T23:59:59Z";

        // 1. Post every invoice (page by page) with its detail.
        std::map<std::string, LedgerEntry> ledger;
        const std::string range =
            R"({"invoice_issue_start_date":")" + from + R"(","invoice_issue_end_date":")" + to + R"("})";
        int pages = 0;
        for (const std::string &page : client.invoices().iter_invoices(range)) {
            pages++;
            for (const std::string &number : values_of(page, "invoiceNumber")) {
                ledger[number].detail_json = client.invoices().get_invoice_detail_by_invoice_number(
                    R"({"invoice_number":")" + number + R"(","region":"JP"})");
            }
        }

        // 2. Match the period's transactions to the posted invoices.
        int matched = 0, unmatched = 0;
        const std::string feed = R"({"feed_start_date":")" + from + R"(","feed_end_date":")" + to + R"("})";
        for (const std::string &page : client.reconciliation().iter_transactions(feed)) {
            for (const std::string &number : values_of(page, "invoiceNumber")) {
                auto it = ledger.find(number);
                if (it != ledger.end()) {
                    it->second.transactions++;
                    matched++;
                } else {
                    unmatched++;
                }
            }
        }
        std::cout << ledger.size() << " invoices posted from " << pages << " pages; " << matched
                  << " transactions matched, " << unmatched << " unmatched (libabws " << abws::version()
                  << ")\n";
        return ledger.empty() ? 1 : 0;
    } catch (const abws::Error &e) {
        std::cerr << "failed (" << e.kind() << ", HTTP " << e.http_status() << ", request id "
                  << e.request_id() << "): " << e.what() << "\n";
        return 1;
    }
}
