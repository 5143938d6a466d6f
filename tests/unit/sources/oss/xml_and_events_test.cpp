#include <catch2/catch.hpp>

#include "net/digest.h"
#include "pipeline/util/base64.h"
#include "sources/oss/encoding.h"
#include "sources/oss/event_decoder.h"
#include "sources/oss/mns_client.h"
#include "sources/oss/oss_client.h"
#include "sources/oss/xml.h"

using namespace cdcd::oss;
using cdcd::base64_encode;

TEST_CASE("XML: namespaces, entities, CDATA, self-closing, errors") {
    auto e = parse_xml(R"(<?xml version="1.0" encoding="UTF-8"?>
<!-- c --><ns:Root xmlns:ns="x" a='1>2'><A>x &amp; y &lt;z&gt; &#65;&#x42;</A><B/><C><![CDATA[<raw>]]></C></ns:Root>)");
    CHECK(e.name == "Root");
    CHECK(e.child_text("A") == "x & y <z> AB");
    CHECK(e.child("B") != nullptr);
    CHECK(e.child_text("C") == "<raw>");
    CHECK(e.child_text("missing", "fb") == "fb");
    CHECK_THROWS_AS(parse_xml("<a><b></a>"), XmlError);
    CHECK_THROWS_AS(parse_xml("<a>"), XmlError);
    CHECK_THROWS_AS(parse_xml("<a>&bogus;</a>"), XmlError);
    CHECK_THROWS_AS(parse_xml("<a/><b/>"), XmlError);
    CHECK(xml_escape("<a&'\">") == "&lt;a&amp;&apos;&quot;&gt;");
}

TEST_CASE("ListObjectsV2 page: url encoding, quoted ETags, times, truncation") {
    const char* body = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://doc.oss-cn-hangzhou.aliyuncs.com">
  <Name>examplebucket</Name><Prefix>a%2F</Prefix><MaxKeys>2</MaxKeys><EncodingType>url</EncodingType>
  <IsTruncated>true</IsTruncated><NextContinuationToken>Ch%2B1</NextContinuationToken>
  <Contents><Key>a%2Fx%20y.txt</Key><LastModified>2020-06-22T11:42:32.000Z</LastModified>
    <ETag>&quot;5B3C1A2E053D763E1B002CC607C5A0FE&quot;</ETag><Type>Normal</Type><Size>344606</Size><StorageClass>Standard</StorageClass></Contents>
  <Contents><Key>a%2F%E4%B8%AD</Key><LastModified>1970-01-01T00:00:01.500Z</LastModified>
    <ETag>"X-2"</ETag><Type>Multipart</Type><Size>0</Size><StorageClass>Standard</StorageClass></Contents>
  <KeyCount>2</KeyCount>
</ListBucketResult>)";
    ListPage p = parse_list_page(body);
    REQUIRE(p.objects.size() == 2);
    CHECK(p.truncated);
    CHECK(p.next_continuation_token == "Ch+1");
    CHECK(p.objects[0].key == "a/x y.txt");
    CHECK(p.objects[0].etag == "5B3C1A2E053D763E1B002CC607C5A0FE");
    CHECK(p.objects[0].size == 344606);
    CHECK(p.objects[0].mtime_ms == 1592826152000LL);
    CHECK(p.objects[1].key == "a/\xE4\xB8\xAD");
    CHECK(p.objects[1].mtime_ms == 1500);
    CHECK_THROWS(
        parse_list_page("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"));
    CHECK_THROWS(parse_list_page("<Error><Code>AccessDenied</Code></Error>"));
}

TEST_CASE("error body") {
    auto [code, message] =
        parse_error_body("<Error><Code>NoSuchBucket</Code><Message>gone</Message></Error>");
    CHECK(code == "NoSuchBucket");
    CHECK(message == "gone");
    CHECK(parse_error_body("not xml").first.empty());
}

TEST_CASE("MNS messages, batch delete body and errors") {
    auto one =
        parse_messages(R"(<?xml version="1.0"?><Message xmlns="http://mns.aliyuncs.com/doc/v1/">
  <MessageId>5F29</MessageId><ReceiptHandle>1-ODU=</ReceiptHandle><MessageBodyMD5>C5</MessageBodyMD5>
  <MessageBody>This is a test message</MessageBody><EnqueueTime>1250700979248</EnqueueTime>
  <NextVisibleTime>1250700799348</NextVisibleTime><FirstDequeueTime>1250700779318</FirstDequeueTime>
  <DequeueCount>1</DequeueCount><Priority>8</Priority></Message>)");
    REQUIRE(one.size() == 1);
    CHECK(one[0].message_id == "5F29");
    CHECK(one[0].receipt_handle == "1-ODU=");
    CHECK(one[0].enqueue_time_ms == 1250700979248LL);
    CHECK(one[0].next_visible_time_ms == 1250700799348LL);
    auto many = parse_messages(
        "<Messages><Message><MessageId>a</MessageId><ReceiptHandle>h1</ReceiptHandle></Message>"
        "<Message><MessageId>b</MessageId><ReceiptHandle>h2</ReceiptHandle></Message></Messages>");
    CHECK(many.size() == 2);
    CHECK_THROWS(
        parse_messages("<Messages><Message><MessageId>a</MessageId></Message></Messages>"));
    CHECK(
        batch_delete_body({"1-ODU4OTkzNDU5My0xNDM1MTk3NjAwLTItNg=="}) ==
        R"(<?xml version="1.0" encoding="UTF-8"?><ReceiptHandles xmlns="http://mns.aliyuncs.com/doc/v1/"><ReceiptHandle>1-ODU4OTkzNDU5My0xNDM1MTk3NjAwLTItNg==</ReceiptHandle></ReceiptHandles>)");
    auto errors = parse_batch_delete_errors(
        "<Errors><Error><ErrorCode>ReceiptHandleError</ErrorCode><ErrorMessage>x</ErrorMessage>"
        "<ReceiptHandle>1-b</ReceiptHandle></Error></Errors>");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].first == "1-b");
    CHECK(errors[0].second == "ReceiptHandleError");
}

namespace {
const std::string kJson =
    R"({"events":[{"eventName":"ObjectCreated:PutObject","eventSource":"acs:oss","eventTime":"2017-04-21T12:46:37.000Z","eventVersion":"1.0","oss":{"bucket":{"arn":"acs:oss:cn-shanghai:123456789:bucketname","name":"testbucket","ownerIdentity":"123456789","virtualBucket":""},"object":{"deltaSize":122539,"eTag":"688A7BF4F233DC9C88A80BF985AB7329","key":"image/a.jpg","size":122539},"ossSchemaVersion":"1.0","ruleId":"9adac8e253828f4f7c0466d941fa3db81161e853"},"region":"cn-shanghai","requestParameters":{"sourceIPAddress":"140.205.128.221"},"responseElements":{"requestId":"58F9FF2D3DF792092E12044C"},"userIdentity":{"principalId":"123456789"}}]})";

void check_official(const std::vector<OssEvent>& ev) {
    REQUIRE(ev.size() == 1);
    const auto& e = ev[0];
    CHECK(e.event_name == "ObjectCreated:PutObject");
    CHECK(e.event_source == "acs:oss");
    CHECK(e.event_time_ms == 1492778797000LL);
    CHECK(e.bucket_name == "testbucket");
    CHECK(e.bucket_arn == "acs:oss:cn-shanghai:123456789:bucketname");
    CHECK(e.key == "image/a.jpg");
    CHECK(e.size == 122539);
    CHECK(e.delta_size == 122539);
    CHECK(e.etag == "688A7BF4F233DC9C88A80BF985AB7329");
    CHECK(e.region == "cn-shanghai");
    CHECK(e.rule_id == "9adac8e253828f4f7c0466d941fa3db81161e853");
    CHECK(e.source_ip == "140.205.128.221");
    CHECK(e.request_id == "58F9FF2D3DF792092E12044C");
    CHECK(e.principal_id == "123456789");
    CHECK_FALSE(e.read_from);
}
}  // namespace

TEST_CASE("OSS event bodies in every delivery form") {
    SECTION("SIMPLIFIED: base64(JSON), the literal example of §3.4") {
        std::string body = base64_encode(kJson);
        CHECK(cdcd::net::hex_upper(cdcd::net::md5(body)) == "140A2D72F7CE550A3D3704980CDCCBCE");
        check_official(decode_message_body(body));
    }
    SECTION("plain JSON (SDK already decoded)") {
        check_official(decode_message_body(kJson));
    }
    SECTION("XML topic envelope") {
        std::string body =
            "<Notification "
            "xmlns=\"http://mns.aliyuncs.com/doc/v1/\"><TopicOwner>1</TopicOwner><TopicName>t</"
            "TopicName>"
            "<Subscriber>1</Subscriber><SubscriptionName>s</SubscriptionName><MessageId>m</"
            "MessageId><Message>" +
            base64_encode(kJson) +
            "</Message><MessageMD5>x</MessageMD5><PublishTime>1449556920975</PublishTime></"
            "Notification>";
        check_official(decode_message_body(body));
        check_official(decode_message_body(base64_encode(body)));
    }
    SECTION("JSON topic envelope") {
        std::string body = R"({"TopicOwner":"1","TopicName":"t","Message":")" +
                           base64_encode(kJson) + R"(","PublishTime":"1449556920975"})";
        check_official(decode_message_body(body));
    }
    SECTION("garbage") {
        CHECK_THROWS_AS(decode_message_body("This is a test message"), EventDecodeError);
        CHECK_THROWS_AS(decode_message_body(R"({"foo":1})"), EventDecodeError);
        CHECK_THROWS_AS(
            decode_message_body(R"({"events":[{"eventName":"ObjectCreated:PutObject"}]})"),
            EventDecodeError);
    }
}

TEST_CASE("event actions and metadata values") {
    CHECK(action_of("ObjectCreated:CompleteMultipartUpload") == EventAction::Upsert);
    CHECK(action_of("ObjectModified:UpdateObjectMeta") == EventAction::Upsert);
    CHECK(action_of("ObjectRemoved:DeleteObjects") == EventAction::Delete);
    CHECK(action_of("ObjectReplication:ObjectRemoved") == EventAction::Delete);
    CHECK(action_of("ObjectReplication:ObjectCreated") == EventAction::Upsert);
    CHECK(action_of("ObjectDownloaded:GetObject") == EventAction::Ignore);
    CHECK(action_of("ObjectRestore:FinishRestore") == EventAction::Ignore);
    auto e = decode_message_body(kJson)[0];
    std::string v;
    CHECK(metadata_value(e, "eventTime", v));
    CHECK(v == "1492778797000");
    CHECK(metadata_value(e, "ossObjectSize", v));
    CHECK(v == "122539");
    CHECK(metadata_value(e, "ossBucketOwnerIdentity", v));
    CHECK(v == "123456789");
    CHECK_FALSE(metadata_value(e, "ossObjectReadFrom", v));
}
