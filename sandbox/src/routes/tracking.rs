//! Package tracking 2025-07-02: events newest first, milestones; packages shipped more than
//! 90 days ago answer 404; invalid ids answer 400 InvalidInput echoing the three ids.

use chrono::{DateTime, Duration, FixedOffset, Utc};
use serde_json::{json, Value};

use super::{iso, visible_at, REGIONS};
use crate::http::{invalid_input, not_found, ApiResult, Req, Resp};
use crate::regions::profile;
use crate::state::State;

/// The operations this group answers (operationId, handler).
pub(crate) static ROUTES: &[(&str, super::Handler)] =
    &[("getPackageTrackingDetails", get_tracking)];

pub const LOCALES: &[&str] = &[
    "ar-AE", "bn-IN", "cs-CZ", "da-DK", "de-DE", "en-AE", "en-AU", "en-CA", "en-GB", "en-IN",
    "en-IE", "en-SG", "en-US", "en-ZA", "es-ES", "es-MX", "es-US", "fr-BE", "fr-CA", "fr-FR",
    "he-IL", "hi-IN", "it-IT", "ja-JP", "kn-IN", "ko-KR", "ml-IN", "mr-IN", "nl-BE", "nl-NL",
    "pl-PL", "pt-BR", "pt-PT", "sv-SE", "ta-IN", "te-IN", "tr-TR", "zh-CN", "zh-TW",
];

pub fn get_tracking(st: &State, req: &Req) -> ApiResult {
    let (oid, sid, pid) = (
        req.param(0).to_string(),
        req.param(1).to_string(),
        req.param(2).to_string(),
    );
    let echo = format!("orderId={oid}, shipmentId={sid}, packageId={pid}");
    let region = match req.q("region") {
        None | Some("") => {
            return Err(invalid_input(format!(
                "The required request parameter is missing: region ({echo})."
            )))
        }
        Some(r) if REGIONS.contains(&r) => {
            if super::in_scope(req, r, "region", "InvalidInput").is_err() {
                return Err(invalid_input(format!(
                    "region {r} is not served by this address ({echo})."
                )));
            }
            r.to_string()
        }
        Some(r) => return Err(invalid_input(format!("region '{r}' is invalid ({echo})."))),
    };
    if let Some(l) = req.q("locale") {
        if !LOCALES.contains(&l) {
            return Err(invalid_input(format!(
                "locale '{l}' is not supported ({echo})."
            )));
        }
    }
    let now = st.now();
    let w = st.world();
    let found = w
        .order(&oid)
        .filter(|&o| visible_at(req, &w.orders[o].region))
        .and_then(|o| {
            let order = &w.orders[o];
            order
                .shipments
                .iter()
                .find(|s| s.id == sid && s.date <= now)
                .and_then(|s| {
                    s.packages
                        .iter()
                        .find(|p| p.id == pid)
                        .map(|p| (order, s, p))
                })
        });
    let Some((order, ship, pkg)) = found else {
        return Err(invalid_input(format!(
            "Invalid input: no package matches {echo}."
        )));
    };
    if order.region != region {
        return Err(invalid_input(format!(
            "region {region} does not match the order's region ({echo})."
        )));
    }
    // Local time of the marketplace: events, promise and milestone windows.
    let rp = profile(&order.region);
    let off = rp.offset();
    let jst = |d: DateTime<Utc>| -> DateTime<FixedOffset> { d.with_timezone(&off) };
    let le = &w.legal_entities[order.legal_entity];
    let dest = le.address[2].clone();
    let country = le.address[5].clone();
    let origin = w.sellers[ship.seller].city.clone();
    if now - ship.date > Duration::days(90) {
        return Err(not_found(format!("Tracking details are available only for packages shipped within the last 90 days ({echo}).")));
    }
    let delivered = ship.delivered.filter(|d| *d <= now);
    let out_for_delivery = delivered.map(|d| d - Duration::hours(4)).or_else(|| {
        let t = ship.date + Duration::hours(30);
        (t <= now).then_some(t)
    });
    let in_transit = ship.date + Duration::hours(8);
    // JP keeps its historical places (order at the customer's city, Chiba, Saitama).
    let (facility, hub, ordered_at) = if order.region == "JP" {
        (rp.facility.to_string(), rp.hub.to_string(), dest.clone())
    } else {
        (origin, rp.hub.to_string(), dest.clone())
    };
    let mut events: Vec<(DateTime<Utc>, &str, String)> = vec![
        (order.date, "Order received", ordered_at),
        (ship.date, "Package has left the seller facility", facility),
    ];
    if in_transit <= now {
        events.push((in_transit, "Package arrived at a carrier facility", hub));
    }
    if let Some(t) = out_for_delivery {
        events.push((t, "Out for delivery", dest.clone()));
    }
    if let Some(t) = delivered {
        events.push((t, "Delivered", dest.clone()));
    }
    events.sort_by_key(|e| std::cmp::Reverse(e.0));
    let status = if delivered.is_some() {
        "DELIVERED"
    } else if out_for_delivery.is_some() {
        "OUT_FOR_DELIVERY"
    } else {
        "SHIPPED"
    };
    let window_end = delivered.unwrap_or(ship.date + Duration::days(3));
    let mut milestones = vec![
        ("ORDERED", Some(order.date)),
        ("SHIPPED", Some(ship.date)),
        ("OUT_FOR_DELIVERY", out_for_delivery),
        ("DELIVERED", delivered),
    ];
    milestones.retain(|m| m.1.is_some());
    milestones.reverse();
    let body = json!({"packageTrackingDetails": {
        "trackingStatus": status,
        "localizedDeliveryPromise": match delivered {
            Some(d) => format!("Delivered {}", jst(d).format("%A, %B %-d")),
            None => format!("Arriving by {}", jst(window_end).format("%A, %B %-d")),
        },
        "deliveryWindow": {"endDate": iso(window_end)},
        "carrierDetails": {"localizedCarrierName": pkg.carrier, "carrierTrackingId": pkg.tracking_id},
        "packageTrackingEvents": events.iter().map(|(t, d, city)| json!({
            "localizedDescription": d,
            "localizedEventDate": jst(*t).format("%Y-%m-%d").to_string(),
            "localizedEventTime": jst(*t).format("%H:%M").to_string(),
            "location": {"city": city, "country": country},
        })).collect::<Vec<Value>>(),
        "packageMilestones": milestones.iter().map(|(k, t)| json!({"milestoneType": k,
            "milestoneWindow": {"endDate": t.map(|t| jst(t).to_rfc3339())}})).collect::<Vec<_>>(),
    }});
    drop(w);
    Ok(Resp::json(200, &body))
}
