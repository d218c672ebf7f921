/* Places orders in the e-invoicing buying group, whose line externalIds must be
 * numeric: with the e_invoicing flag the rule is checked before sending (a validation
 * error naming the line); without it the service refuses (an API error with status,
 * code, message and request id); with numeric ids the order is accepted. */
#include "common.h"

static char order_json[4096];

static const char *order(const char *external_id, const char *line_id, int e_invoicing,
                         const char *asin, const char *offer) {
    return fmt(order_json, sizeof order_json,
               "{\"external_id\":\"%s\",%s"
               "\"line_items\":[{\"external_id\":\"%s\",\"quantity\":1,\"attributes\":["
               "{\"attributeType\":\"SelectedProductReference\",\"productReference\":"
               "{\"id\":\"%s\",\"productReferenceType\":\"ProductIdentifier\"}},"
               "{\"attributeType\":\"SelectedBuyingOptionReference\",\"buyingOptionReference\":"
               "{\"id\":\"%s\",\"buyingOptionReferenceType\":\"BuyingOptionIdentifier\"}}],"
               "\"expectations\":[]}],"
               "\"attributes\":["
               "{\"attributeType\":\"BuyingGroupReference\",\"groupReference\":"
               "{\"identifier\":\"%s\",\"groupReferenceType\":\"GroupIdentity\"}},"
               "{\"attributeType\":\"BuyerReference\",\"userReference\":"
               "{\"emailAddress\":\"%s\",\"userReferenceType\":\"UserEmail\"}},"
               "{\"attributeType\":\"Region\",\"region\":\"JP\"}],"
               "\"expectations\":[]}",
               external_id, e_invoicing ? "\"e_invoicing\":true," : "", line_id, asin, offer,
               env_required("ABWS_TEST_EINVOICE_GROUP"), env_required("ABWS_TEST_EINVOICE_BUYER"));
}

int main(void) {
    abws_client *client = test_client();

    /* A product and its featured offer from product search. */
    char asin[32], offer[128];
    find_offer(client, asin, offer);
    abws_error *err = NULL;
    abws_status st;

    /* 1. With the e_invoicing flag: refused before sending, naming the line. */
    char *result = NULL;
    err = NULL;
    st = abws_ordering_place_order(client, order("c-einv-1", "line-A", 1, asin, offer), &result,
                                   &err);
    CHECK(st == ABWS_STATUS_VALIDATION, "flagged order: status %u", (unsigned)st);
    CHECK(result == NULL, "no result on failure");
    CHECK(strcmp(abws_error_parameter(err), "line_items[0].external_id") == 0, "parameter %s",
          abws_error_parameter(err));
    CHECK(strstr(abws_error_message(err), "line_items[0].external_id") != NULL &&
              strstr(abws_error_message(err), "digit") != NULL,
          "message: %s", abws_error_message(err));
    CHECK(abws_error_http_status(err) == 0, "nothing was sent");
    printf("with the flag: %s\n", abws_error_message(err));
    abws_error_free(err);

    /* 2. Without the flag: the service refuses with 400 naming the line. */
    err = NULL;
    st = abws_ordering_place_order(client, order("c-einv-2", "line-A", 0, asin, offer), &result,
                                   &err);
    CHECK(st == ABWS_STATUS_API, "unflagged order: status %u", (unsigned)st);
    CHECK(abws_error_http_status(err) == 400, "HTTP %u", abws_error_http_status(err));
    CHECK(strcmp(abws_error_code(err), "INVALID_REQUEST_PARAMETER") == 0, "code %s",
          abws_error_code(err));
    CHECK(abws_error_request_id(err)[0] != '\0', "request id present");
    CHECK(strstr(abws_error_message(err), "line-A") != NULL ||
              strstr(abws_error_message(err), "externalId") != NULL,
          "message names the line: %s", abws_error_message(err));
    char *ejson = NULL;
    CHECK(abws_error_to_json(err, &ejson) == ABWS_STATUS_OK, "error as JSON");
    if (ejson) {
        CHECK(strstr(ejson, "\"http_status\":400") != NULL, "%s", ejson);
        CHECK(strstr(ejson, "\"operation\":\"placeOrder\"") != NULL, "%s", ejson);
        abws_string_free(ejson);
    }
    printf("without the flag: %s\n", abws_error_message(err));
    abws_error_free(err);

    /* 3. Numeric line ids: accepted. */
    err = NULL;
    result = NULL;
    st = abws_ordering_place_order(client, order("c-einv-3", "10", 1, asin, offer), &result, &err);
    CHECK(st == ABWS_STATUS_OK, "numeric line ids accepted");
    report_error("place_order", st, err);
    if (result) {
        CHECK(strstr(result, "\"OrderIdentifier\"") != NULL, "an order id: %.300s", result);
        abws_string_free(result);
    }

    abws_client_free(client);
    return test_summary("order_einvoicing");
}
