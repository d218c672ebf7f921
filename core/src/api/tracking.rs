//! Package tracking 2025-07-02: status, carrier, events and milestones of one package.

use super::client_region;
use crate::answer::Answer;
use crate::client::Client;
use crate::error::{ErrorKind, Result};
use crate::operation_row::Row;
use crate::{model, validate, Timestamp};

super::group_rows! {$
    tracking Tracking {
        /// A package's carrier, status and tracking events.
        GET_PACKAGE_TRACKING_DETAILS = GET_PACKAGE_TRACKING_DETAILS => get_package_tracking_details(GetPackageTrackingDetailsParams) -> PackageTrackingDetails;
    }
}

/// The locales the tracking operation supports.
pub const SUPPORTED_LOCALES: [&str; 39] = [
    "ar-AE", "bn-IN", "cs-CZ", "da-DK", "de-DE", "en-AE", "en-AU", "en-CA", "en-GB", "en-IN",
    "en-IE", "en-SG", "en-US", "en-ZA", "es-ES", "es-MX", "es-US", "fr-BE", "fr-CA", "fr-FR",
    "he-IL", "hi-IN", "it-IT", "ja-JP", "kn-IN", "ko-KR", "ml-IN", "mr-IN", "nl-BE", "nl-NL",
    "pl-PL", "pt-BR", "pt-PT", "sv-SE", "ta-IN", "te-IN", "tr-TR", "zh-CN", "zh-TW",
];

model! {
    /// A time window (endDate, and startDate where sent).
    pub struct TimeWindow {
        "startDate" start_date: Timestamp,
        "endDate" end_date: Timestamp,
    }
}

model! {
    /// The carrier of a package.
    pub struct CarrierDetails {
        "localizedCarrierName" localized_carrier_name: String,
        "carrierTrackingId" carrier_tracking_id: String,
    }
}

model! {
    /// Where an event happened.
    pub struct EventLocation {
        "city" city: String,
        "state" state: String,
        "country" country: String,
    }
}

model! {
    /// A tracking event (newest first).
    pub struct TrackingEvent {
        "localizedDescription" localized_description: String,
        "localizedEventDate" localized_event_date: String,
        "localizedEventTime" localized_event_time: String,
        "location" location: EventLocation,
    }
}

model! {
    /// A milestone (ORDERED, SHIPPED, OUT_FOR_DELIVERY, DELIVERED, ...).
    pub struct Milestone {
        "milestoneType" milestone_type: String,
        "milestoneWindow" milestone_window: TimeWindow,
    }
}

model! {
    /// A package's tracking details.
    pub struct PackageTrackingDetails {
        "trackingStatus" tracking_status: String,
        "localizedDeliveryPromise" localized_delivery_promise: String,
        "deliveryWindow" delivery_window: TimeWindow,
        "carrierDetails" carrier_details: CarrierDetails,
        "packageTrackingEvents" package_tracking_events: Vec<Option<TrackingEvent>>,
        "packageMilestones" package_milestones: Vec<Option<Milestone>>,
    }
}

model! {
    /// The body of getPackageTrackingDetails.
    pub struct PackageTrackingResponse {
        "packageTrackingDetails" package_tracking_details: PackageTrackingDetails,
    }
}

impl crate::answer::Wrapper for PackageTrackingResponse {
    type Part = PackageTrackingDetails;
    const FIELD: &'static str = "packageTrackingDetails";
    fn into_part(self) -> Option<PackageTrackingDetails> {
        self.package_tracking_details
    }
}

crate::params! {
    /// The arguments of getPackageTrackingDetails.
    pub struct GetPackageTrackingDetailsParams {
        /// The order.
        req order_id: String,
        /// The shipment of the order.
        req shipment_id: String,
        /// The package of the shipment.
        req package_id: String,
        /// The order's region (default: the client's).
        opt region: String,
        /// The language of the event texts (one of `SUPPORTED_LOCALES`, e.g. en-US; en_us
        /// is sent as en-US).
        opt locale: String,
    }
}

/// The tracking operation. Get one with `Client::tracking`.
pub struct Tracking<'a> {
    pub(crate) client: &'a Client,
}

impl Client {
    /// Package tracking 2025-07-02.
    pub fn tracking(&self) -> Tracking<'_> {
        Tracking { client: self }
    }
}

/// getPackageTrackingDetails. Packages shipped more than 90 days ago have no answer.
pub(crate) async fn get_package_tracking_details(
    c: &Client,
    p: &GetPackageTrackingDetailsParams,
) -> Result<Answer<PackageTrackingDetails>> {
    let (order_id, shipment_id, package_id) = (&p.order_id, &p.shipment_id, &p.package_id);
    validate::non_empty("order_id", order_id)?;
    validate::non_empty("shipment_id", shipment_id)?;
    validate::non_empty("package_id", package_id)?;
    let region = client_region(c, &p.region)?;
    let locale = match &p.locale {
        Some(l) => {
            let l = crate::normalize::locale("locale", l)?;
            validate::one_of("locale", &l, &SUPPORTED_LOCALES)?;
            Some(l)
        }
        None => None,
    };
    let call = crate::wire!(GetPackageTrackingDetailsParams {
        order_id,
        shipment_id,
        package_id,
        region,
        locale,
    });
    let resp = c.execute(&call).await.map_err(|e| {
        // InvalidInput: say which identifiers the service rejected.
        if e.kind() == ErrorKind::Api && e.api_failure().is_some_and(|f| f.has_code("InvalidInput")) {
            e.with_hint(format!(
                "the service rejected order {order_id:?}, shipment {shipment_id:?} or package {package_id:?} \
                 (unknown, not matching each other, or shipped more than 90 days ago)"
            ))
        } else {
            e
        }
    })?;
    Ok(Answer::part::<PackageTrackingResponse>(
        resp,
        GetPackageTrackingDetailsParams::ROW.id,
    ))
}
