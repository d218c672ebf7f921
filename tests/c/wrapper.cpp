// The C++17 wrapper (abws.hpp): RAII handles, std::string results, abws::Error with
// every field, range-for over pagers, downloads into a lambda (an exception thrown by
// it comes back out), and one Client shared by std::threads.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "abws.hpp"

#include "common.hpp"

static int count_of(const std::string &text, const std::string &needle) {
    int n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) n++;
    return n;
}

// The text value of the first "key":"..." at or after `from`.
static std::string value_of(const std::string &json, const std::string &key, std::size_t from = 0) {
    std::string needle = "\"" + key + "\":\"";
    auto at = json.find(needle, from);
    if (at == std::string::npos) return "";
    at += needle.size();
    return json.substr(at, json.find('"', at) - at);
}

static void run() {
    CHECK(abws::version() == ABWS_VERSION_STRING, abws::version());

    // Bad settings: an exception with the status and the key.
    try {
        abws::Client bad(R"({"region":"JP","access_token":"x","colour":"red"})");
        CHECK(false, "no exception");
    } catch (const abws::Error &e) {
        CHECK(e.status() == ABWS_STATUS_VALIDATION, e.what());
        CHECK(e.parameter() == "colour", e.parameter());
        CHECK(e.kind() == "validation", e.kind());
    }
    try {
        abws::Client bad("{");
        CHECK(false, "no exception");
    } catch (const abws::Error &e) {
        CHECK(e.status() == ABWS_STATUS_INVALID_JSON, e.what());
    }

    // The shared state's check (issue 40): a wrong password throws, naming shared_state.
    {
        std::string redis = env("ABWS_TEST_REDIS");  // redis://:PASSWORD@127.0.0.1:PORT/0
        std::string wrong = "redis://:wrong-pw" + redis.substr(redis.find('@'));
        std::string settings = env("ABWS_TEST_SETTINGS");
        settings.pop_back();
        abws::Client lenient(settings + ",\"shared_state\":\"" + wrong + "\"}");
        try {
            lenient.check_shared_state();
            CHECK(false, "no exception");
        } catch (const abws::Error &e) {
            CHECK(e.status() == ABWS_STATUS_VALIDATION && e.parameter() == "shared_state", e.what());
        }
    }

    // From the environment: ABWS_REGION is required (named); overrides stand in for it.
    unsetenv("ABWS_REGION");
    try {
        abws::Client bad(abws::from_env);
        CHECK(false, "no exception");
    } catch (const abws::Error &e) {
        CHECK(e.status() == ABWS_STATUS_VALIDATION && e.parameter() == "ABWS_REGION", e.what());
    }
    {
        abws::Client from_env(abws::from_env, env("ABWS_TEST_SETTINGS"));
        CHECK(from_env.get() != nullptr, "a client of the environment and its overrides");
    }

    abws::Client made(env("ABWS_TEST_SETTINGS"));
    abws::Client client = std::move(made);  // RAII handles move
    CHECK(made.get() == nullptr && client.get() != nullptr, "moved");

    // Range-for over every page of last month's invoices.
    std::vector<std::string> expected;
    {
        std::stringstream list(env("ABWS_TEST_PREV_INVOICES"));
        for (std::string n; std::getline(list, n, ',');) expected.push_back(n);
    }
    const std::string range = "{\"invoice_issue_start_date\":\"" + env("ABWS_TEST_PREV_START") +
                              "\",\"invoice_issue_end_date\":\"" + env("ABWS_TEST_PREV_END") + "\"}";
    std::string all;
    int pages = 0;
    for (const std::string &page : client.invoices().iter_invoices(range)) {
        all += page;
        pages++;
    }
    CHECK(pages >= 2, pages);
    CHECK(count_of(all, "\"invoiceNumber\":") == static_cast<int>(expected.size()),
          count_of(all, "\"invoiceNumber\":") << " of " << expected.size());
    for (const auto &n : expected) CHECK(count_of(all, "\"" + n + "\"") >= 1, n);

    // A pager moved into another object still walks its listing.
    abws::Pager first = client.invoices().iter_invoices(range);
    abws::Pager moved = std::move(first);
    auto page1 = moved.next();
    CHECK(page1 && page1->find("\"invoices\":[") != std::string::npos, "first page");

    // Resumed from the moved pager's cursor by a new pager, with per-call options: the
    // pages after the first, the last one without a cursor after it.
    auto cursor = moved.next_token();
    CHECK(cursor.has_value(), "a cursor after the first page");
    abws_call_options patient{};
    patient.timeout = 60.0;
    patient.max_attempts = 2;
    abws::Pager resumed = client.invoices().iter_invoices(range, patient);
    resumed.start_at(*cursor);
    std::string rest = *page1;
    int rest_pages = 0;
    for (auto page = resumed.next(); page; page = resumed.next()) {
        rest += *page;
        rest_pages++;
    }
    CHECK(rest_pages == pages - 1, rest_pages << " of " << pages);
    CHECK(!resumed.next_token().has_value(), "no cursor after the last page");
    CHECK(count_of(rest, "\"invoiceNumber\":") == static_cast<int>(expected.size()),
          count_of(rest, "\"invoiceNumber\":") << " of " << expected.size());
    // A bad per-call option: a validation error naming it.
    try {
        abws_call_options bad{};
        bad.max_attempts = 11;
        client.invoices().get_invoices(range, bad);
        CHECK(false, "no exception");
    } catch (const abws::Error &e) {
        CHECK(e.status() == ABWS_STATUS_VALIDATION && e.parameter() == "max_attempts", e.what());
    }

    // An API error: status, HTTP status, code, request id.
    try {
        client.invoices().get_invoice_detail_by_invoice_number(R"({"invoice_number":"JPNOSUCH"})");
        CHECK(false, "no exception");
    } catch (const abws::Error &e) {
        CHECK(e.status() == ABWS_STATUS_API && e.http_status() == 404, e.what());
        CHECK(!e.request_id().empty() && e.kind() == "api", e.what());
    }

    // An e-invoicing rule broken: a validation error naming the line.
    try {
        client.ordering().place_order(
            R"({"external_id":"cpp-1","e_invoicing":true,"line_items":[{"external_id":"A-1","quantity":1,)"
            R"("attributes":[{"attributeType":"SelectedProductReference","productReference":{"id":"B0X"}},)"
            R"({"attributeType":"SelectedBuyingOptionReference","buyingOptionReference":{"id":"O1"}}]}]})");
        CHECK(false, "no exception");
    } catch (const abws::Error &e) {
        CHECK(e.status() == ABWS_STATUS_VALIDATION, e.what());
        CHECK(e.parameter() == "line_items[0].external_id", e.parameter());
    }

    // A PDF into a std::string, and a sink that throws.
    std::string tx = client.reconciliation().get_transactions(
        "{\"feed_start_date\":\"" + env("ABWS_TEST_PREV_START") + "\",\"feed_end_date\":\"" +
        env("ABWS_TEST_PREV_END") + "\"}");
    const std::string specials = env("ABWS_TEST_SPECIAL_ORDERS");
    std::string order, line;
    for (auto at = tx.find("\"transactionType\":\"CHARGE\""); at != std::string::npos;
         at = tx.find("\"transactionType\":\"CHARGE\"", at + 1)) {
        order = value_of(tx, "orderId", at);
        line = value_of(tx, "orderLineItemId", at);
        if (specials.find(order) == std::string::npos) break;
    }
    const std::string report = "{\"report_options\":{\"order_id\":\"" + order +
                               "\",\"order_line_item_id\":\"" + line +
                               "\",\"document_type\":\"Invoice\"},\"poll_interval\":0.2,\"timeout\":120}";
    std::string pdf = client.documents().fetch_pdf(report);
    CHECK(pdf.size() > 100 && pdf.compare(0, 5, "%PDF-") == 0, pdf.size());
    try {
        client.documents().fetch_pdf(report, [](const std::uint8_t *, std::size_t) {
            throw std::runtime_error("the sink is full");
        });
        CHECK(false, "no exception");
    } catch (const abws::Error &e) {
        CHECK(false, "the sink's own exception expected, got " << e.what());
    } catch (const std::runtime_error &e) {
        CHECK(std::string(e.what()) == "the sink is full", e.what());
    }

    // The month-end close (issue 41): the result JSON, the progress callable called per
    // phase, its exception rethrown after the close, a bad parameter an abws::Error.
    {
        char dir[] = "/tmp/abws-cpp-close-XXXXXX";
        CHECK(mkdtemp(dir) != nullptr, "a temporary directory");
        const std::string month = env("ABWS_TEST_PREV_START").substr(0, 7);
        const std::string params = "{\"month\":\"" + month + "\",\"out\":\"" + std::string(dir) +
                                   "/m\",\"no_pdfs\":true,\"poll_interval\":0.02}";
        std::vector<std::string> phases;
        std::uint64_t data_steps = 0;
        std::string result = client.close_month(params, [&](const std::string &phase, std::uint64_t, std::uint64_t) {
            phases.push_back(phase);
            if (phase == "invoice_data") data_steps++;
        });
        CHECK(result.find("\"complete\":true") != std::string::npos, result.substr(0, 200));
        CHECK(!value_of(result, "net_total").empty(), "net_total as decimal text");
        const int rows = count_of(result, "\"line_items\":");
        CHECK(rows > 0 && data_steps == static_cast<std::uint64_t>(rows), data_steps << " steps, " << rows << " rows");
        CHECK(!phases.empty() && phases.front() == "plan" && phases.back() == "outputs",
              (phases.empty() ? "none" : phases.front() + ".." + phases.back()));
        int calls = 0;
        try {
            client.close_month(params, [&](const std::string &, std::uint64_t, std::uint64_t) {
                calls++;
                throw std::runtime_error("the progress bar broke");
            });
            CHECK(false, "no exception");
        } catch (const std::runtime_error &e) {
            CHECK(std::string(e.what()) == "the progress bar broke" && calls == 1, e.what() << ", calls " << calls);
        }
        try {
            client.close_month("{\"month\":\"2026-13\",\"out\":\"" + std::string(dir) + "/bad\"}");
            CHECK(false, "no exception");
        } catch (const abws::Error &e) {
            CHECK(e.status() == ABWS_STATUS_VALIDATION && e.parameter() == "month", e.what());
        }
        CHECK(std::system(("rm -rf '" + std::string(dir) + "'").c_str()) == 0, "rm -rf");
    }

    // One call files the PDF sealed; without a key, abws::Error naming `key`.
    {
        char dir[] = "/tmp/abws-cpp-fetch-XXXXXX";
        CHECK(mkdtemp(dir) != nullptr, "a temporary directory");
        const std::string path = std::string(dir) + "/filed.pdf.abws";
        const std::string to_file = report.substr(0, report.size() - 1) + ",\"path\":\"" + path + "\"";
        unsetenv("ABWS_DOCUMENT_KEY");
        try {
            client.documents().fetch_pdf_to_file(to_file + "}");
            CHECK(false, "no exception");
        } catch (const abws::Error &e) {
            CHECK(e.status() == ABWS_STATUS_VALIDATION && e.parameter() == "key", e.what());
        }
        const std::string key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
        std::uint64_t n = client.documents().fetch_pdf_to_file(to_file + ",\"key\":\"" + key + "\"}");
        CHECK(n == pdf.size(), n);
        std::FILE *f = std::fopen(path.c_str(), "rb");
        char head[8] = {0};
        CHECK(f != nullptr && std::fread(head, 1, 8, f) == 8 && std::memcmp(head, "ABWSENC1", 8) == 0,
              "the file is sealed");
        if (f) std::fclose(f);
        std::remove(path.c_str());
        // A report document of a finished report into a file, sealed: download_to_file.
        const std::string created = client.documents().create_report(
            "{\"report_options\":{\"order_id\":\"" + order + "\",\"order_line_item_id\":\"" + line +
            "\",\"document_type\":\"Invoice\"}}");
        const std::string done = client.documents().wait_for_report(
            "{\"report_id\":\"" + value_of(created, "reportId", 0) + "\",\"poll_interval\":0.2,\"timeout\":120}");
        const std::string stored = std::string(dir) + "/stored.pdf.abws";
        n = client.documents().download_to_file("{\"report_document_id\":\"" +
                                                value_of(done, "reportDocumentId", 0) + "\",\"path\":\"" +
                                                stored + "\",\"key\":\"" + key + "\"}");
        CHECK(n == pdf.size(), n);
        f = std::fopen(stored.c_str(), "rb");
        std::memset(head, 0, sizeof head);
        CHECK(f != nullptr && std::fread(head, 1, 8, f) == 8 && std::memcmp(head, "ABWSENC1", 8) == 0,
              "download_to_file seals the file");
        if (f) std::fclose(f);
        std::remove(stored.c_str());
        rmdir(dir);
    }

    // One Client, four threads.
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; i++) {
        threads.emplace_back([&, i] {
            try {
                std::string detail = client.invoices().get_invoice_detail_by_invoice_number(
                    "{\"invoice_number\":\"" + expected[static_cast<std::size_t>(i)] + "\"}");
                if (detail.find(expected[static_cast<std::size_t>(i)]) != std::string::npos) ok++;
            } catch (const abws::Error &e) {
                std::cerr << "thread " << i << ": " << e.what() << "\n";
            }
        });
    }
    for (auto &t : threads) t.join();
    CHECK(ok == 4, ok.load());

    // Rotated refresh tokens reach a std::function, also after the client moved; an empty
    // one removes it. The sandbox behind these settings rotates refresh tokens and issues
    // two-second access tokens.
    std::vector<std::string> rotated;
    std::mutex rotated_lock;
    abws::Client rotating(env("ABWS_TEST_ROTATING_SETTINGS_2"));
    rotating.on_refresh_token([&](const std::string &token) {
        std::lock_guard<std::mutex> guard(rotated_lock);
        rotated.push_back(token);
    });
    rotating.invoices().get_invoices(range);
    abws::Client rotating_moved = std::move(rotating);
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // the next call refreshes
    rotating_moved.invoices().get_invoices(range);
    CHECK(rotated.size() == 2, rotated.size());
    CHECK(rotated.size() == 2 && rotated[0] != rotated[1] && rotated[1].rfind("Atzr|", 0) == 0,
          "a new refresh token each time");
    rotating_moved.on_refresh_token(nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    rotating_moved.invoices().get_invoices(range);
    CHECK(rotated.size() == 2, "called after the removal: " << rotated.size());
}

int main() {
    run();
    // RAII freed everything: no client, pager, error or string is left.
    std::size_t clients = 1, pagers = 1, errors = 1, strings = 1;
    abws_live_objects(&clients, &pagers, &errors, &strings);
    CHECK(clients + pagers + errors + strings == 0,
          clients << " clients, " << pagers << " pagers, " << errors << " errors, " << strings
                  << " strings left");

    if (failures) {
        std::cerr << "wrapper: " << failures << " of " << checks << " checks failed\n";
        return 1;
    }
    std::cout << "wrapper: " << checks << " checks passed\n";
    return 0;
}
