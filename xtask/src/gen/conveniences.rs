//! The Python methods of the conveniences (`abws::api::conveniences::CONVENIENCES`), written
//! once here and generated into both flavours: `Client`'s groups (bindings-python/python/
//! abws/client.py) and `AsyncClient`'s (async_client.py), between markers in each group
//! class. A method's code is the same in both but for `async`/`await` (`{async}`,
//! `{await}`) and its docstring (`{doc}`: the blocking one's, or the awaitable one's, which
//! says what cancelling does). The generator fails when a convenience of the core has no
//! Python method here.

use abws::api::conveniences::CONVENIENCES;

use super::Section;

const CLIENT_PY: &str = "bindings-python/python/abws/client.py";
const ASYNC_CLIENT_PY: &str = "bindings-python/python/abws/async_client.py";

/// A Python method of a group class.
struct Method {
    /// The group (`CONVENIENCES`' group) whose class has it.
    group: &'static str,
    /// The conveniences of the core it calls.
    serves: &'static [&'static str],
    /// Its code (overloads included), four spaces in, with `{async}`, `{await}`, `{doc}`
    /// and `fetch_pdf`'s keywords (`{filters}`, `{filters=}`).
    code: &'static str,
    /// The docstring of `Client`'s method.
    doc: &'static str,
    /// The docstring of `AsyncClient`'s.
    async_doc: &'static str,
}

const METHODS: &[Method] = &[
    Method {
        group: "reconciliation",
        serves: &["invoice_details_for"],
        code: r#"    {async}def invoice_details_for(
        self, line_items: Sequence[LineItemRef], *, progress: bool = False
    ) -> List[InvoiceDetailsByOrderLineItem]:
        """{doc}"""
        with _Bar(progress, "invoice_details_for", "line item") as bar:
            out: List[InvoiceDetailsByOrderLineItem] = {await}self._client._run(
                "invoice_details_for", {"line_items": line_items}, bar.counter()
            )
        return out"#,
        doc: r#"The invoice data of any number of line items with the fewest requests
        (batches of 25; one request per order and shipment). One result per input, in
        input order. Each line item is as for ``get_invoice_details_by_order_line_items``.
        ``progress=True`` shows a bar of the line items answered (needs tqdm:
        ``pip install 'abws[progress]'``).
        "#,
        async_doc: r#"As ``Reconciliation.invoice_details_for``: the invoice data of any number of line
        items with the fewest requests; one result per input, in input order.
        ``progress=True`` shows a bar of the line items answered (needs tqdm)."#,
    },
    Method {
        group: "documents",
        serves: &["wait_for_report"],
        code: r#"    {async}def wait_for_report(
        self,
        report_id: str,
        poll_interval: Optional[float] = None,
        timeout: Optional[float] = DEFAULT_WAIT_TIMEOUT,
    ) -> Report:
        """{doc}"""
        report: Report = {await}self._client._run("wait_for_report", _wait_args(report_id, poll_interval, timeout))
        return report"#,
        doc: r#"Polls getReport every ``poll_interval`` seconds until DONE (returns the
        ``Report``); by default every 15 s, or sooner when a running report's answer says
        ``Retry-After`` (the sandbox's do: about a second in all); CANCELLED/FATAL raise ``ReportFailed``; ``timeout``
        (seconds, default 1800: 30 minutes) bounds the wait with ``Timeout``;
        ``timeout=None`` waits without bound. Ctrl-C interrupts it."#,
        async_doc: r#"As ``Documents.wait_for_report``: polls getReport until DONE (the ``Report``);
        CANCELLED/FATAL raise ``ReportFailed``; ``timeout`` (seconds, default 1800) raises
        ``Timeout``. Cancelling the task stops the polling."#,
    },
    Method {
        group: "documents",
        serves: &["download"],
        code: r#"    {async}def download(self, report_document_id: str, *, progress: bool = False) -> bytes:
        """{doc}"""
        with _Bar(progress, "download") as bar:
            data: bytes = {await}self._client._run("download", report_document_id)
            bar.add(len(data))
            return data"#,
        doc: r#"Downloads a report document and returns the PDF, unpacked in memory (gzip and
        zip); an error document inside raises ``DocumentError``."#,
        async_doc: r#"As ``Documents.download``: the PDF, unpacked in memory. A cancelled download
        frees what it had received."#,
    },
    Method {
        group: "documents",
        serves: &["download", "download_to_file"],
        code: r#"    {async}def download_to(
        self,
        report_document_id: str,
        writer: Union[BinaryIO, str, "os.PathLike[str]"],
        *,
        key: Union[bytes, str, None] = None,
        allow_plaintext: bool = False,
        progress: bool = False,
    ) -> int:
        """{doc}"""
        with _Bar(progress, "download") as bar:
            size: int = {await}self._client._run(*_download_to_call(report_document_id, writer, key, allow_plaintext, bar))
            return size"#,
        doc: r#"Downloads a report document and streams it into ``writer`` as it arrives
        (gzip and zip unpacked on the fly: memory does not grow with the document);
        returns the PDF's size in bytes.

        ``writer`` is a path or a binary file object (anything with ``write(bytes)``).

        A path receives an ENCRYPTED file (AES-256-GCM, the "abws sealed file" format;
        ``python -m abws decrypt FILE -o OUT.pdf`` or ``abws.decrypt`` opens it) under
        ``key`` — 32 bytes, or a str of 64 hex digits — or, without one, the key in the
        ``ABWS_DOCUMENT_KEY`` environment variable. Neither: ``ValidationError`` before
        any request. ``allow_plaintext=True`` writes the plain PDF instead (reports hold
        sensitive data, which the service's documentation says must not be written
        unencrypted to disk). The file is written to a temporary file with a random name
        beside it (created
        exclusively, owner-only, no symbolic link followed) and renamed into place once
        complete, so a failed download never leaves a partial file behind; a path that is
        a symbolic link is refused.

        A file object receives the PDF as it is (it is the caller's stream), or the
        sealed file when ``key`` is given. One that fails part-way holds the bytes written
        so far; an exception its ``write`` raises is re-raised as it is. The key is never
        printed, logged or put in an error.
        "#,
        async_doc: r#"As ``Documents.download_to``: streams the document into a path (sealed under
        ``key`` or ``ABWS_DOCUMENT_KEY`` unless ``allow_plaintext=True``) or a binary file
        object; returns the PDF's size. A file object's ``write`` is called on the
        library's I/O thread, never on the event loop (a plain file is fine; an async
        file object is not a writer). A cancelled download to a path leaves no file."#,
    },
    Method {
        group: "documents",
        serves: &["fetch_pdf", "fetch_pdf_to_file"],
        code: r#"    @overload
    {async}def fetch_pdf(
        self,
        *,
{filters}
        to: None = ...,
        key: None = ...,
    ) -> bytes: ...
    @overload
    {async}def fetch_pdf(
        self,
        *,
{filters}
        to: PathLike,
        key: Union[bytes, str, None] = ...,
    ) -> int: ...
    {async}def fetch_pdf(
        self,
        *,
{filters=}
        to: Optional[PathLike] = None,
        key: Union[bytes, str, None] = None,
    ) -> Union[bytes, int]:
        """{doc}"""
        args = _fetch_pdf_args(
            order_id, order_line_item_id, shipment_id, invoice_id, document_type,
            report_type, marketplace_ids, poll_interval, timeout,
        )  # fmt: skip
        with _Bar(progress, "fetch_pdf") as bar:
            out: Union[bytes, int] = {await}self._client._run(*_fetch_pdf_call(args, to, key, bar))
            if isinstance(out, bytes):
                bar.add(len(out))
            return out"#,
        doc: r#"create → wait → document → download in one call; returns the PDF bytes.
        ``poll_interval`` defaults to 15 seconds (or a running report's ``Retry-After``,
        as ``wait_for_report``); ``timeout`` bounds the wait for the
        report (seconds, default 1800: 30 minutes; ``None``: no bound).

        ``to=path`` files the PDF ENCRYPTED instead, in the same one call, and returns its
        size: the file is sealed (AES-256-GCM, the "abws sealed file" format that
        ``abws.decrypt`` and ``python -m abws decrypt`` open) under ``key`` — 32 bytes or
        64 hex digits — or, without one, ``ABWS_DOCUMENT_KEY``. Neither:
        ``ValidationError`` before any request. The plain PDF never touches the disk: it
        is encrypted as it arrives into a temporary file beside ``path`` (owner-only, no
        symbolic link followed), renamed into place once complete; a failure at any step
        leaves no file. A directory that cannot be written fails before the report is
        asked for."#,
        async_doc: r#"As ``Documents.fetch_pdf``: create → wait → document → download; the PDF bytes,
        or, with ``to=path``, the PDF sealed into that file under ``key`` (or
        ``ABWS_DOCUMENT_KEY``) and its size. A cancelled call leaves no file."#,
    },
];

/// The keywords `fetch_pdf`'s overloads share (`{filters}`: their defaults `...`) with
/// its implementation (`{filters=}`): name, type, default.
const FETCH_PDF_FILTERS: &[(&str, &str, &str)] = &[
    ("order_id", "Optional[str]", "None"),
    ("order_line_item_id", "Optional[str]", "None"),
    ("shipment_id", "Optional[str]", "None"),
    ("invoice_id", "Optional[str]", "None"),
    ("document_type", "Optional[str]", "None"),
    ("report_type", "Optional[str]", "None"),
    ("marketplace_ids", "Optional[Sequence[str]]", "None"),
    ("poll_interval", "Optional[float]", "None"),
    ("timeout", "Optional[float]", "DEFAULT_WAIT_TIMEOUT"),
    ("progress", "bool", "False"),
];

/// `FETCH_PDF_FILTERS`' lines of a signature, with their defaults or `...`.
fn filters(defaults: bool) -> String {
    let lines: Vec<String> = FETCH_PDF_FILTERS
        .iter()
        .map(|(name, ty, default)| {
            let default = if defaults { default } else { "..." };
            format!("        {name}: {ty} = {default},")
        })
        .collect();
    lines.join("\n")
}

/// The methods of `group` in one flavour (`asynchronous`: `AsyncClient`'s).
fn methods(group: &str, asynchronous: bool) -> String {
    let mut s = String::new();
    for m in METHODS.iter().filter(|m| m.group == group) {
        let (prefix, wait, doc) = if asynchronous {
            ("async ", "await ", m.async_doc)
        } else {
            ("", "", m.doc)
        };
        if !s.is_empty() {
            s.push('\n');
        }
        s.push_str(
            &m.code
                .replace("{filters}", &filters(false))
                .replace("{filters=}", &filters(true))
                .replace("{async}", prefix)
                .replace("{await}", wait)
                .replace("{doc}", doc),
        );
        s.push('\n');
    }
    s.push_str("    ");
    s
}

/// The conveniences' sections of client.py and async_client.py, one per group and flavour.
pub fn sections() -> Result<Vec<Section>, String> {
    for c in CONVENIENCES {
        if !METHODS
            .iter()
            .any(|m| m.group == c.group && m.serves.contains(&c.name))
        {
            return Err(format!(
                "the convenience {}.{} has no Python method in xtask/src/gen/conveniences.rs",
                c.group, c.name
            ));
        }
    }
    let mut groups: Vec<&str> = CONVENIENCES.iter().map(|c| c.group).collect();
    groups.dedup();
    let mut out = vec![];
    for group in groups {
        for (path, asynchronous) in [(CLIENT_PY, false), (ASYNC_CLIENT_PY, true)] {
            out.push(Section {
                path,
                begin: format!(
                    "# BEGIN GENERATED: {group} conveniences (cargo run -p xtask -- gen; do not edit)"
                ),
                end: format!("# END GENERATED: {group} conveniences"),
                body: methods(group, asynchronous),
            });
        }
    }
    Ok(out)
}
