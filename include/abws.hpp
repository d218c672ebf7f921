// abws.hpp: a header-only C++17 wrapper over the C API of abws (abws.h).
//
// RAII handles (Client, Pager), std::string results (JSON in the wire form),
// exceptions (abws::Error) carrying every field of the C error, a range-for over
// pagers, and downloads into any callable. Link with -labws (pkg-config: abws).
//
//     abws::Client client(R"({"region":"JP","access_token":"..."})");
//     for (const std::string &page : client.invoices().iter_invoices(params)) { ... }
//     std::string pdf = client.documents().download(R"({"report_document_id":"..."})");
//
// Thread safety: as the C API. A Client may be shared by any number of threads (all
// methods are const); a Pager is used by one thread at a time. Objects returned by
// group accessors (client.invoices()) borrow the Client and must not outlive it.
#ifndef ABWS_HPP
#define ABWS_HPP

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "abws.h"

namespace abws {

/// The library's version (the same as ABWS_VERSION_STRING when header and library match).
inline std::string version() { return abws_version(); }

/// A failed call: the C error's status and fields, copied, so the exception owns them.
class Error : public std::runtime_error {
 public:
    /// Takes over `err` (which may be NULL) and frees it.
    Error(abws_status status, abws_error *err)
        : std::runtime_error(text(abws_error_message(err), status)),
          status_(status),
          kind_(text(abws_error_kind(err), status)),
          code_(text(abws_error_code(err))),
          details_(text(abws_error_details(err))),
          request_id_(text(abws_error_request_id(err))),
          parameter_(text(abws_error_parameter(err))),
          external_id_(text(abws_error_external_id(err))),
          http_status_(abws_error_http_status(err)) {
        abws_error_free(err);
    }

    /// The ABWS_STATUS_* value.
    abws_status status() const noexcept { return status_; }
    /// "validation", "api", "page_token_expired", ... (see abws_error_kind).
    const std::string &kind() const noexcept { return kind_; }
    /// The service's error code, or "".
    const std::string &code() const noexcept { return code_; }
    /// The service's error details, or "".
    const std::string &details() const noexcept { return details_; }
    /// The service's request id, or "".
    const std::string &request_id() const noexcept { return request_id_; }
    /// The parameter a validation error is about, or "".
    const std::string &parameter() const noexcept { return parameter_; }
    /// The externalId of an order whose outcome is unknown, or "".
    const std::string &external_id() const noexcept { return external_id_; }
    /// The HTTP status of an API error, or 0.
    std::uint16_t http_status() const noexcept { return http_status_; }

 private:
    static std::string text(const char *s) { return s ? std::string(s) : std::string(); }
    static std::string text(const char *s, abws_status status) {
        return s ? std::string(s) : std::string(abws_status_name(status));
    }

    abws_status status_;
    std::string kind_, code_, details_, request_id_, parameter_, external_id_;
    std::uint16_t http_status_;
};

namespace detail {

/// Throws for a failure (taking over `err`). Call it after the C call, never with the
/// call as an argument: the order in which arguments are evaluated is unspecified.
inline void check(abws_status status, abws_error *err) {
    if (status != ABWS_STATUS_OK) throw Error(status, err);
    abws_error_free(err);
}

/// Copies a library string into a std::string and frees it.
inline std::string take(char *s) {
    struct Free {
        void operator()(char *p) const noexcept { abws_string_free(p); }
    };
    std::unique_ptr<char, Free> owned(s);
    return s ? std::string(s) : std::string();
}

using OpFn = abws_status (*)(const abws_client *, const char *, char **, abws_error **);
using PagerFn = abws_status (*)(const abws_client *, const char *, abws_pager **, abws_error **);
using OpOptionsFn = abws_status (*)(const abws_client *, const char *, const abws_call_options *,
                                    char **, abws_error **);
using PagerOptionsFn = abws_status (*)(const abws_client *, const char *, const abws_call_options *,
                                       abws_pager **, abws_error **);
using FileFn = abws_status (*)(const abws_client *, const char *, std::uint64_t *, abws_error **);
using DownloadFn = abws_status (*)(const abws_client *, const char *, abws_write_callback, void *,
                                   uint64_t *, abws_error **);

/// Carries a C++ callable through the C callback; an exception it throws is kept and
/// rethrown after the C call returns (it never crosses the C frames).
template <class Sink>
struct SinkContext {
    Sink *sink;
    std::exception_ptr error;

    static int call(void *userdata, const std::uint8_t *data, std::size_t len) noexcept {
        auto *self = static_cast<SinkContext *>(userdata);
        try {
            (*self->sink)(data, len);
            return 0;
        } catch (...) {
            self->error = std::current_exception();
            return 1;
        }
    }
};

}  // namespace detail

/// The pages of a listing, as JSON strings. Move-only; frees the C pager.
/// `for (const std::string &page : pager)` walks every page; an error throws
/// abws::Error from the loop. A Pager may outlive the Client that made it (as in C): it
/// shares the client's refresh-token callbacks (Client::on_refresh_token), which a
/// refresh it makes may call, and keeps them alive until it is destroyed.
class Pager {
 public:
    explicit Pager(abws_pager *handle) noexcept : handle_(handle) {}
    /// Takes over `handle` and keeps `keep_alive` (what the C pager's callbacks use) until
    /// the C pager is freed.
    Pager(abws_pager *handle, std::shared_ptr<const void> keep_alive) noexcept
        : handle_(handle), keep_alive_(std::move(keep_alive)) {}
    Pager(Pager &&other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)), keep_alive_(std::move(other.keep_alive_)) {}
    Pager &operator=(Pager &&other) noexcept {
        if (this != &other) {
            abws_pager_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
            keep_alive_ = std::move(other.keep_alive_);
        }
        return *this;
    }
    Pager(const Pager &) = delete;
    Pager &operator=(const Pager &) = delete;
    ~Pager() { abws_pager_free(handle_); }

    /// The cursor of the next page (abws_pager_next_token), or std::nullopt after the
    /// last page. Give it to start_at() of a new pager with the same params to resume.
    std::optional<std::string> next_token() const {
        char *token = nullptr;
        abws_error *err = nullptr;
        detail::check(abws_pager_next_token(handle_, &token, &err), err);
        if (token == nullptr) return std::nullopt;
        return detail::take(token);
    }

    /// Starts the listing at a saved cursor (abws_pager_start_at), before its first page.
    void start_at(const std::string &token) {
        abws_error *err = nullptr;
        detail::check(abws_pager_start_at(handle_, token.c_str(), &err), err);
    }

    /// The next page, or std::nullopt when the listing is complete.
    std::optional<std::string> next() {
        char *page = nullptr;
        abws_error *err = nullptr;
        abws_status status = abws_pager_next(handle_, &page, &err);
        detail::check(status, err);
        if (page == nullptr) return std::nullopt;
        return detail::take(page);
    }

    /// An input iterator over the pages.
    class iterator {
     public:
        using iterator_category = std::input_iterator_tag;
        using value_type = std::string;
        using difference_type = std::ptrdiff_t;
        using pointer = const std::string *;
        using reference = const std::string &;

        iterator() = default;
        explicit iterator(Pager *pager) : pager_(pager) { ++*this; }
        reference operator*() const { return page_; }
        pointer operator->() const { return &page_; }
        iterator &operator++() {
            std::optional<std::string> next = pager_->next();
            if (next) {
                page_ = std::move(*next);
            } else {
                pager_ = nullptr;
            }
            return *this;
        }
        bool operator==(const iterator &other) const { return pager_ == other.pager_; }
        bool operator!=(const iterator &other) const { return !(*this == other); }

     private:
        Pager *pager_ = nullptr;
        std::string page_;
    };

    iterator begin() { return iterator(this); }
    iterator end() { return iterator(); }

    abws_pager *get() const noexcept { return handle_; }

 private:
    abws_pager *handle_;
    // Released after the C pager is freed (members are destroyed after the destructor's
    // body): nothing can call into it any more by then.
    std::shared_ptr<const void> keep_alive_;
};

/// Selects the constructor that reads the `ABWS_*` environment variables:
/// `abws::Client client(abws::from_env);` (see abws_client_from_env).
struct from_env_t {
    explicit from_env_t() = default;
};
inline constexpr from_env_t from_env{};

/// The RAII handle of a C client and the calls every group method goes through; use
/// `Client` (below), which adds one accessor per API group. Move-only; frees the C client.
class ClientBase {
 public:
    /// Creates a client from a settings JSON object (see abws_client_new).
    explicit ClientBase(const std::string &settings_json) {
        abws_error *err = nullptr;
        abws_status status = abws_client_new(settings_json.c_str(), &handle_, &err);
        detail::check(status, err);
    }
    /// Creates a client from the `ABWS_*` environment variables, with `overrides_json` (a
    /// JSON object of settings; empty: none) on top (see abws_client_from_env).
    explicit ClientBase(from_env_t, const std::string &overrides_json = std::string()) {
        abws_error *err = nullptr;
        abws_status status = abws_client_from_env(
            overrides_json.empty() ? nullptr : overrides_json.c_str(), &handle_, &err);
        detail::check(status, err);
    }
    ClientBase(ClientBase &&other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)), callbacks_(std::move(other.callbacks_)) {}
    // The callbacks of the client given up are released, not destroyed: pagers made from
    // it hold them too.
    ClientBase &operator=(ClientBase &&other) noexcept {
        if (this != &other) {
            abws_client_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
            callbacks_ = std::move(other.callbacks_);
        }
        return *this;
    }
    ClientBase(const ClientBase &) = delete;
    ClientBase &operator=(const ClientBase &) = delete;
    ~ClientBase() { abws_client_free(handle_); }

    /// Checks that the shared state (settings key `shared_state`) can be used now; throws
    /// abws::Error saying why when it cannot (see abws_client_check_shared_state).
    void check_shared_state() const {
        abws_error *err = nullptr;
        abws_status status = abws_client_check_shared_state(handle_, &err);
        detail::check(status, err);
    }

    /// Runs one operation: params JSON in, result JSON
    /// out; throws abws::Error.
    std::string call(detail::OpFn fn, const std::string &params) const {
        char *result = nullptr;
        abws_error *err = nullptr;
        abws_status status = fn(handle_, params.c_str(), &result, &err);
        detail::check(status, err);
        return detail::take(result);
    }

    /// Creates a pager; throws abws::Error.
    Pager pages(detail::PagerFn fn, const std::string &params) const {
        abws_pager *pager = nullptr;
        abws_error *err = nullptr;
        abws_status status = fn(handle_, params.c_str(), &pager, &err);
        detail::check(status, err);
        // The pager shares the client's credentials, so its refreshes call the client's
        // refresh-token callbacks, also after the client is gone: it keeps them alive.
        return Pager(pager, callbacks_);
    }

    /// Runs one operation with per-call options (`abws_call_options`); throws abws::Error.
    std::string call(detail::OpOptionsFn fn, const std::string &params, const abws_call_options &options) const {
        char *result = nullptr;
        abws_error *err = nullptr;
        abws_status status = fn(handle_, params.c_str(), &options, &result, &err);
        detail::check(status, err);
        return detail::take(result);
    }

    /// Creates a pager whose pages take per-call options; throws abws::Error.
    Pager pages(detail::PagerOptionsFn fn, const std::string &params, const abws_call_options &options) const {
        abws_pager *pager = nullptr;
        abws_error *err = nullptr;
        abws_status status = fn(handle_, params.c_str(), &options, &pager, &err);
        detail::check(status, err);
        return Pager(pager, callbacks_);
    }

    /// Runs a function that writes a document into a file; returns the PDF's size.
    std::uint64_t to_file(detail::FileFn fn, const std::string &params) const {
        std::uint64_t written = 0;
        abws_error *err = nullptr;
        abws_status status = fn(handle_, params.c_str(), &written, &err);
        detail::check(status, err);
        return written;
    }

    /// Runs a download function, handing every chunk to `sink(const uint8_t *, size_t)`.
    template <class Sink>
    std::uint64_t stream(detail::DownloadFn fn, const std::string &params, Sink &&sink) const {
        using Plain = std::remove_reference_t<Sink>;
        detail::SinkContext<Plain> context{&sink, nullptr};
        std::uint64_t written = 0;
        abws_error *err = nullptr;
        abws_status status = fn(handle_, params.c_str(), &detail::SinkContext<Plain>::call,
                                &context, &written, &err);
        if (context.error) {
            abws_error_free(err);
            std::rethrow_exception(context.error);
        }
        detail::check(status, err);
        return written;
    }

    /// The month-end close (`abws_close_month`): `params` is the CloseParams JSON
    /// (`month`, `out`, ...; see abws.h and docs/close.md); returns the CloseResult JSON;
    /// throws abws::Error. `progress(const std::string &phase, std::uint64_t done,
    /// std::uint64_t total)` is called at every step, on the calling thread; it must call
    /// no method of the client. An exception it throws is kept, the callable is not called
    /// again, and the exception is rethrown once the close has returned (the close itself
    /// runs on: it cannot be stopped from its progress).
    template <class Progress>
    std::string close_month(const std::string &params, Progress &&progress) const {
        using Plain = std::remove_reference_t<Progress>;
        struct Context {
            Plain *progress;
            std::exception_ptr error;
            static void call(void *user_data, const char *phase, std::uint64_t done,
                             std::uint64_t total) noexcept {
                auto *self = static_cast<Context *>(user_data);
                if (self->error) return;
                try {
                    (*self->progress)(std::string(phase), done, total);
                } catch (...) {
                    self->error = std::current_exception();
                }
            }
        } context{&progress, nullptr};
        char *result = nullptr;
        abws_error *err = nullptr;
        abws_status status = abws_close_month(handle_, params.c_str(), &Context::call, &context, &result, &err);
        if (context.error) {
            abws_error_free(err);
            abws_string_free(result);
            std::rethrow_exception(context.error);
        }
        detail::check(status, err);
        return detail::take(result);
    }
    /// The month-end close without progress.
    std::string close_month(const std::string &params) const {
        char *result = nullptr;
        abws_error *err = nullptr;
        abws_status status = abws_close_month(handle_, params.c_str(), nullptr, nullptr, &result, &err);
        detail::check(status, err);
        return detail::take(result);
    }

    /// Hands every refresh token the server rotates to `persist` (see
    /// abws_client_set_refresh_token_callback), or stops when it is empty. Set it before
    /// the first call. It runs on the thread of the call that refreshes the token (of this
    /// client or of a Pager made from it), while that call is still running: it must call
    /// no method of the client or of a Pager (abws::Error, status RUNTIME), and must not
    /// throw: an exception is swallowed there (it cannot cross the C boundary), so store the
    /// token first. Each function given stays alive as long as the client and every Pager
    /// made from it (a Pager's refresh calls it, also after the client is destroyed), as a
    /// refresh already running may still call the previous one; what it captures must live
    /// as long.
    void on_refresh_token(std::function<void(const std::string &)> persist) {
        abws_error *err = nullptr;
        if (!persist) {
            detail::check(abws_client_set_refresh_token_callback(handle_, nullptr, nullptr, &err), err);
            return;
        }
        if (!callbacks_) callbacks_ = std::make_shared<Callbacks>();  // a moved-from client
        callbacks_->push_back(std::make_unique<std::function<void(const std::string &)>>(std::move(persist)));
        detail::check(abws_client_set_refresh_token_callback(handle_, &ClientBase::rotated,
                                                             callbacks_->back().get(), &err),
                      err);
    }

    /// The C handle, for calls the wrapper does not cover; still owned by this client. A C
    /// pager made from it directly does not keep the on_refresh_token functions alive (use
    /// pages(), or free such a pager before the client).
    abws_client *get() const noexcept { return handle_; }

 private:
    static void rotated(void *user_data, const char *refresh_token) noexcept {
        try {
            (*static_cast<std::function<void(const std::string &)> *>(user_data))(refresh_token);
        } catch (...) {
        }
    }

    using Callbacks = std::vector<std::unique_ptr<std::function<void(const std::string &)>>>;

    abws_client *handle_ = nullptr;
    // Every function given to on_refresh_token, each heap-held (its address is the C
    // callback's user_data). Shared with the Pagers made from this client: the C library
    // calls them until the client and all those pagers are freed. Released after the handle.
    std::shared_ptr<Callbacks> callbacks_ = std::make_shared<Callbacks>();
};

// The group classes and `Client` are generated from the operations table (one method
// per operation and per pager, plus the conveniences of the C API).
// BEGIN GENERATED: group classes (cargo run -p xtask -- gen; do not edit)
/// The `invoices` operations; get one with `Client::invoices()`. Each method takes
/// the params JSON of its C function (documented in abws.h) and returns the result
/// JSON; a failure throws abws::Error.
class Invoices {
 public:
    explicit Invoices(const ClientBase &client) noexcept : client_(client) {}
    /// getInvoices (`abws_invoices_get_invoices`): one page of the invoices and credit
    /// memos issued in a date range (at most 366 days).
    std::string get_invoices(const std::string &params = "{}") const {
        return client_.call(abws_invoices_get_invoices, params);
    }
    /// With per-call options (`abws_invoices_get_invoices_with_options`).
    std::string get_invoices(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_invoices_get_invoices_with_options, params, options);
    }
    /// getInvoiceDetailByInvoiceNumber
    /// (`abws_invoices_get_invoice_detail_by_invoice_number`): one invoice or credit memo
    /// in full: parties, billing details, tax breakdown.
    std::string get_invoice_detail_by_invoice_number(const std::string &params = "{}") const {
        return client_.call(abws_invoices_get_invoice_detail_by_invoice_number, params);
    }
    /// With per-call options (`abws_invoices_get_invoice_detail_by_invoice_number_with_options`).
    std::string get_invoice_detail_by_invoice_number(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_invoices_get_invoice_detail_by_invoice_number_with_options, params, options);
    }
    /// getInvoiceLineItemsByInvoiceNumber
    /// (`abws_invoices_get_invoice_line_items_by_invoice_number`): one page of an invoice's
    /// line items (then the reversal units of its credit memos).
    std::string get_invoice_line_items_by_invoice_number(const std::string &params = "{}") const {
        return client_.call(abws_invoices_get_invoice_line_items_by_invoice_number, params);
    }
    /// With per-call options (`abws_invoices_get_invoice_line_items_by_invoice_number_with_options`).
    std::string get_invoice_line_items_by_invoice_number(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_invoices_get_invoice_line_items_by_invoice_number_with_options, params, options);
    }
    /// `abws_invoices_iter_invoices`: every page of getInvoices as JSON strings
    /// (range-for).
    Pager iter_invoices(const std::string &params = "{}") const {
        return client_.pages(abws_invoices_iter_invoices, params);
    }
    /// With per-call options for each page (`abws_invoices_iter_invoices_with_options`).
    Pager iter_invoices(const std::string &params, const abws_call_options &options) const {
        return client_.pages(abws_invoices_iter_invoices_with_options, params, options);
    }
    /// `abws_invoices_iter_invoice_line_items`: every page of
    /// getInvoiceLineItemsByInvoiceNumber as JSON strings (range-for).
    Pager iter_invoice_line_items(const std::string &params = "{}") const {
        return client_.pages(abws_invoices_iter_invoice_line_items, params);
    }
    /// With per-call options for each page (`abws_invoices_iter_invoice_line_items_with_options`).
    Pager iter_invoice_line_items(const std::string &params, const abws_call_options &options) const {
        return client_.pages(abws_invoices_iter_invoice_line_items_with_options, params, options);
    }

 private:
    const ClientBase &client_;
};

/// The `reconciliation` operations; get one with `Client::reconciliation()`. Each method takes
/// the params JSON of its C function (documented in abws.h) and returns the result
/// JSON; a failure throws abws::Error.
class Reconciliation {
 public:
    explicit Reconciliation(const ClientBase &client) noexcept : client_(client) {}
    /// getTransactions (`abws_reconciliation_get_transactions`): one page of the
    /// transactions of a feed-date range.
    std::string get_transactions(const std::string &params = "{}") const {
        return client_.call(abws_reconciliation_get_transactions, params);
    }
    /// With per-call options (`abws_reconciliation_get_transactions_with_options`).
    std::string get_transactions(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_reconciliation_get_transactions_with_options, params, options);
    }
    /// getInvoiceDetailsByOrderLineItems
    /// (`abws_reconciliation_get_invoice_details_by_order_line_items`): the invoice data of
    /// 1 to 25 order line items.
    std::string get_invoice_details_by_order_line_items(const std::string &params = "{}") const {
        return client_.call(abws_reconciliation_get_invoice_details_by_order_line_items, params);
    }
    /// With per-call options (`abws_reconciliation_get_invoice_details_by_order_line_items_with_options`).
    std::string get_invoice_details_by_order_line_items(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_reconciliation_get_invoice_details_by_order_line_items_with_options, params, options);
    }
    /// `abws_reconciliation_iter_transactions`: every page of getTransactions as JSON
    /// strings (range-for).
    Pager iter_transactions(const std::string &params = "{}") const {
        return client_.pages(abws_reconciliation_iter_transactions, params);
    }
    /// With per-call options for each page (`abws_reconciliation_iter_transactions_with_options`).
    Pager iter_transactions(const std::string &params, const abws_call_options &options) const {
        return client_.pages(abws_reconciliation_iter_transactions_with_options, params, options);
    }
    /// `abws_reconciliation_invoice_details_for`: the invoice data of any number of order
    /// line items, in batches of 25.
    std::string invoice_details_for(const std::string &params = "{}") const {
        return client_.call(abws_reconciliation_invoice_details_for, params);
    }

 private:
    const ClientBase &client_;
};

/// The `documents` operations; get one with `Client::documents()`. Each method takes
/// the params JSON of its C function (documented in abws.h) and returns the result
/// JSON; a failure throws abws::Error.
class Documents {
 public:
    explicit Documents(const ClientBase &client) noexcept : client_(client) {}
    /// createReport (`abws_documents_create_report`): starts a report that produces an
    /// invoice or credit note PDF.
    std::string create_report(const std::string &params = "{}") const {
        return client_.call(abws_documents_create_report, params);
    }
    /// With per-call options (`abws_documents_create_report_with_options`).
    std::string create_report(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_documents_create_report_with_options, params, options);
    }
    /// getReport (`abws_documents_get_report`): a report's processing status (and its
    /// document id once DONE).
    std::string get_report(const std::string &params = "{}") const {
        return client_.call(abws_documents_get_report, params);
    }
    /// With per-call options (`abws_documents_get_report_with_options`).
    std::string get_report(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_documents_get_report_with_options, params, options);
    }
    /// getReportDocument (`abws_documents_get_report_document`): a report document's
    /// presigned address (five minutes) and compression.
    std::string get_report_document(const std::string &params = "{}") const {
        return client_.call(abws_documents_get_report_document, params);
    }
    /// With per-call options (`abws_documents_get_report_document_with_options`).
    std::string get_report_document(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_documents_get_report_document_with_options, params, options);
    }
    /// `abws_documents_wait_for_report`: getReport until the report ends; the final report.
    std::string wait_for_report(const std::string &params = "{}") const {
        return client_.call(abws_documents_wait_for_report, params);
    }
    /// `abws_documents_download`: streams a report document (the PDF) to `sink(const
    /// uint8_t *, size_t)`; returns the byte count. An exception thrown by `sink` stops the
    /// download and is rethrown here.
    template <class Sink>
    std::uint64_t download(const std::string &params, Sink &&sink) const {
        return client_.stream(abws_documents_download, params, std::forward<Sink>(sink));
    }
    /// `abws_documents_download` into memory: the document's bytes.
    std::string download(const std::string &params) const {
        std::string bytes;
        download(params, [&bytes](const std::uint8_t *data, std::size_t len) {
            bytes.append(reinterpret_cast<const char *>(data), len);
        });
        return bytes;
    }
    /// `abws_documents_fetch_pdf`: createReport, wait, download in one call, streamed to
    /// `sink`; returns the byte count. An exception thrown by `sink` stops the download and
    /// is rethrown here.
    template <class Sink>
    std::uint64_t fetch_pdf(const std::string &params, Sink &&sink) const {
        return client_.stream(abws_documents_fetch_pdf, params, std::forward<Sink>(sink));
    }
    /// `abws_documents_fetch_pdf` into memory: the document's bytes.
    std::string fetch_pdf(const std::string &params) const {
        std::string bytes;
        fetch_pdf(params, [&bytes](const std::uint8_t *data, std::size_t len) {
            bytes.append(reinterpret_cast<const char *>(data), len);
        });
        return bytes;
    }
    /// `abws_documents_download_to_file`: a report document into the file `path` of the
    /// params, sealed (encrypted) under `key` or ABWS_DOCUMENT_KEY unless
    /// `allow_plaintext`; returns the PDF's size. Throws abws::Error.
    std::uint64_t download_to_file(const std::string &params) const {
        return client_.to_file(abws_documents_download_to_file, params);
    }
    /// `abws_documents_fetch_pdf_to_file`: createReport, wait, download in one call, into
    /// the file `path` of the params, sealed (encrypted) under `key` or ABWS_DOCUMENT_KEY;
    /// returns the PDF's size. Throws abws::Error.
    std::uint64_t fetch_pdf_to_file(const std::string &params) const {
        return client_.to_file(abws_documents_fetch_pdf_to_file, params);
    }

 private:
    const ClientBase &client_;
};

/// The `cart` operations; get one with `Client::cart()`. Each method takes
/// the params JSON of its C function (documented in abws.h) and returns the result
/// JSON; a failure throws abws::Error.
class Cart {
 public:
    explicit Cart(const ClientBase &client) noexcept : client_(client) {}
    /// listCarts (`abws_cart_list_carts`): one page of the buying user's carts.
    std::string list_carts(const std::string &params = "{}") const {
        return client_.call(abws_cart_list_carts, params);
    }
    /// With per-call options (`abws_cart_list_carts_with_options`).
    std::string list_carts(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_cart_list_carts_with_options, params, options);
    }
    /// getCart (`abws_cart_get_cart`): one cart.
    std::string get_cart(const std::string &params = "{}") const {
        return client_.call(abws_cart_get_cart, params);
    }
    /// With per-call options (`abws_cart_get_cart_with_options`).
    std::string get_cart(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_cart_get_cart_with_options, params, options);
    }
    /// getItems (`abws_cart_get_items`): the items of a cart.
    std::string get_items(const std::string &params = "{}") const {
        return client_.call(abws_cart_get_items, params);
    }
    /// With per-call options (`abws_cart_get_items_with_options`).
    std::string get_items(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_cart_get_items_with_options, params, options);
    }
    /// addItems (`abws_cart_add_items`): adds items to a cart (never resent after an
    /// ambiguous failure).
    std::string add_items(const std::string &params = "{}") const {
        return client_.call(abws_cart_add_items, params);
    }
    /// With per-call options (`abws_cart_add_items_with_options`).
    std::string add_items(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_cart_add_items_with_options, params, options);
    }
    /// modifyItems (`abws_cart_modify_items`): sets the quantities of a cart's items (0
    /// removes one).
    std::string modify_items(const std::string &params = "{}") const {
        return client_.call(abws_cart_modify_items, params);
    }
    /// With per-call options (`abws_cart_modify_items_with_options`).
    std::string modify_items(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_cart_modify_items_with_options, params, options);
    }
    /// deleteItems (`abws_cart_delete_items`): empties a cart.
    std::string delete_items(const std::string &params = "{}") const {
        return client_.call(abws_cart_delete_items, params);
    }
    /// With per-call options (`abws_cart_delete_items_with_options`).
    std::string delete_items(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_cart_delete_items_with_options, params, options);
    }
    /// getEstimatedTotalPurchaseCost (`abws_cart_get_estimated_total_purchase_cost`): the
    /// estimated total cost of a cart's items shipped to an address.
    std::string get_estimated_total_purchase_cost(const std::string &params = "{}") const {
        return client_.call(abws_cart_get_estimated_total_purchase_cost, params);
    }
    /// With per-call options (`abws_cart_get_estimated_total_purchase_cost_with_options`).
    std::string get_estimated_total_purchase_cost(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_cart_get_estimated_total_purchase_cost_with_options, params, options);
    }
    /// `abws_cart_iter_carts`: every page of listCarts as JSON strings (range-for).
    Pager iter_carts(const std::string &params = "{}") const {
        return client_.pages(abws_cart_iter_carts, params);
    }
    /// With per-call options for each page (`abws_cart_iter_carts_with_options`).
    Pager iter_carts(const std::string &params, const abws_call_options &options) const {
        return client_.pages(abws_cart_iter_carts_with_options, params, options);
    }

 private:
    const ClientBase &client_;
};

/// The `products` operations; get one with `Client::products()`. Each method takes
/// the params JSON of its C function (documented in abws.h) and returns the result
/// JSON; a failure throws abws::Error.
class Products {
 public:
    explicit Products(const ClientBase &client) noexcept : client_(client) {}
    /// searchProductsRequest (`abws_products_search_products_request`): one page of a
    /// product search (the featured offer of each product).
    std::string search_products_request(const std::string &params = "{}") const {
        return client_.call(abws_products_search_products_request, params);
    }
    /// With per-call options (`abws_products_search_products_request_with_options`).
    std::string search_products_request(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_products_search_products_request_with_options, params, options);
    }
    /// productsRequest (`abws_products_products_request`): one product.
    std::string products_request(const std::string &params = "{}") const {
        return client_.call(abws_products_products_request, params);
    }
    /// With per-call options (`abws_products_products_request_with_options`).
    std::string products_request(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_products_products_request_with_options, params, options);
    }
    /// searchOffersRequest (`abws_products_search_offers_request`): one page of a product's
    /// offers.
    std::string search_offers_request(const std::string &params = "{}") const {
        return client_.call(abws_products_search_offers_request, params);
    }
    /// With per-call options (`abws_products_search_offers_request_with_options`).
    std::string search_offers_request(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_products_search_offers_request_with_options, params, options);
    }
    /// getProductsByAsins (`abws_products_get_products_by_asins`): up to 30 products by
    /// ASIN.
    std::string get_products_by_asins(const std::string &params = "{}") const {
        return client_.call(abws_products_get_products_by_asins, params);
    }
    /// With per-call options (`abws_products_get_products_by_asins_with_options`).
    std::string get_products_by_asins(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_products_get_products_by_asins_with_options, params, options);
    }
    /// getOffersByOfferIds (`abws_products_get_offers_by_offer_ids`): up to 30 offers by
    /// offer id.
    std::string get_offers_by_offer_ids(const std::string &params = "{}") const {
        return client_.call(abws_products_get_offers_by_offer_ids, params);
    }
    /// With per-call options (`abws_products_get_offers_by_offer_ids_with_options`).
    std::string get_offers_by_offer_ids(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_products_get_offers_by_offer_ids_with_options, params, options);
    }
    /// `abws_products_iter_search_products`: every page of searchProductsRequest as JSON
    /// strings (range-for).
    Pager iter_search_products(const std::string &params = "{}") const {
        return client_.pages(abws_products_iter_search_products, params);
    }
    /// With per-call options for each page (`abws_products_iter_search_products_with_options`).
    Pager iter_search_products(const std::string &params, const abws_call_options &options) const {
        return client_.pages(abws_products_iter_search_products_with_options, params, options);
    }
    /// `abws_products_iter_search_offers`: every page of searchOffersRequest as JSON
    /// strings (range-for).
    Pager iter_search_offers(const std::string &params = "{}") const {
        return client_.pages(abws_products_iter_search_offers, params);
    }
    /// With per-call options for each page (`abws_products_iter_search_offers_with_options`).
    Pager iter_search_offers(const std::string &params, const abws_call_options &options) const {
        return client_.pages(abws_products_iter_search_offers_with_options, params, options);
    }

 private:
    const ClientBase &client_;
};

/// The `ordering` operations; get one with `Client::ordering()`. Each method takes
/// the params JSON of its C function (documented in abws.h) and returns the result
/// JSON; a failure throws abws::Error.
class Ordering {
 public:
    explicit Ordering(const ClientBase &client) noexcept : client_(client) {}
    /// placeOrder (`abws_ordering_place_order`): places an order (never resent after an
    /// ambiguous failure: that is OutcomeUnknown).
    std::string place_order(const std::string &params = "{}") const {
        return client_.call(abws_ordering_place_order, params);
    }
    /// With per-call options (`abws_ordering_place_order_with_options`).
    std::string place_order(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_ordering_place_order_with_options, params, options);
    }

 private:
    const ClientBase &client_;
};

/// The `reporting` operations; get one with `Client::reporting()`. Each method takes
/// the params JSON of its C function (documented in abws.h) and returns the result
/// JSON; a failure throws abws::Error.
class Reporting {
 public:
    explicit Reporting(const ClientBase &client) noexcept : client_(client) {}
    /// getOrdersByOrderId (`abws_reporting_get_orders_by_order_id`): the orders of an order
    /// id, with the parts asked for.
    std::string get_orders_by_order_id(const std::string &params = "{}") const {
        return client_.call(abws_reporting_get_orders_by_order_id, params);
    }
    /// With per-call options (`abws_reporting_get_orders_by_order_id_with_options`).
    std::string get_orders_by_order_id(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_reporting_get_orders_by_order_id_with_options, params, options);
    }
    /// getShipmentLineItemReports (`abws_reporting_get_shipment_line_item_reports`): one
    /// page of shipment line item reports.
    std::string get_shipment_line_item_reports(const std::string &params = "{}") const {
        return client_.call(abws_reporting_get_shipment_line_item_reports, params);
    }
    /// With per-call options (`abws_reporting_get_shipment_line_item_reports_with_options`).
    std::string get_shipment_line_item_reports(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_reporting_get_shipment_line_item_reports_with_options, params, options);
    }
    /// `abws_reporting_iter_shipment_line_item_reports`: every page of
    /// getShipmentLineItemReports as JSON strings (range-for).
    Pager iter_shipment_line_item_reports(const std::string &params = "{}") const {
        return client_.pages(abws_reporting_iter_shipment_line_item_reports, params);
    }
    /// With per-call options for each page (`abws_reporting_iter_shipment_line_item_reports_with_options`).
    Pager iter_shipment_line_item_reports(const std::string &params, const abws_call_options &options) const {
        return client_.pages(abws_reporting_iter_shipment_line_item_reports_with_options, params, options);
    }

 private:
    const ClientBase &client_;
};

/// The `tracking` operations; get one with `Client::tracking()`. Each method takes
/// the params JSON of its C function (documented in abws.h) and returns the result
/// JSON; a failure throws abws::Error.
class Tracking {
 public:
    explicit Tracking(const ClientBase &client) noexcept : client_(client) {}
    /// getPackageTrackingDetails (`abws_tracking_get_package_tracking_details`): a
    /// package's carrier, status and tracking events.
    std::string get_package_tracking_details(const std::string &params = "{}") const {
        return client_.call(abws_tracking_get_package_tracking_details, params);
    }
    /// With per-call options (`abws_tracking_get_package_tracking_details_with_options`).
    std::string get_package_tracking_details(const std::string &params, const abws_call_options &options) const {
        return client_.call(abws_tracking_get_package_tracking_details_with_options, params, options);
    }

 private:
    const ClientBase &client_;
};

/// A client of the service: the RAII handle of `ClientBase` and one accessor per API
/// group. Move-only; frees the C client. Share one instance between threads (every
/// method is const and thread-safe); the group objects borrow it.
class Client : public ClientBase {
 public:
    using ClientBase::ClientBase;
    Invoices invoices() const { return Invoices(*this); }
    Reconciliation reconciliation() const { return Reconciliation(*this); }
    Documents documents() const { return Documents(*this); }
    Cart cart() const { return Cart(*this); }
    Products products() const { return Products(*this); }
    Ordering ordering() const { return Ordering(*this); }
    Reporting reporting() const { return Reporting(*this); }
    Tracking tracking() const { return Tracking(*this); }
};
// END GENERATED: group classes

}  // namespace abws

#endif  // ABWS_HPP
