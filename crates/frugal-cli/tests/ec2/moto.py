"""What the EC2 tests ask the EC2 API server (moto) directly, through boto3.

    python moto.py ENDPOINT instances            # every instance as JSON lines
    python moto.py ENDPOINT launch CLUSTER VM    # an instance tagged as VM's, as a launch
                                                 # the service did not record would leave
    python moto.py ENDPOINT user-data ID         # the instance's user data, decoded
"""

import base64
import json
import sys

import boto3


def main() -> None:
    endpoint, command, *args = sys.argv[1:]
    ec2 = boto3.client(
        "ec2",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    if command == "instances":
        for page in ec2.get_paginator("describe_instances").paginate():
            for r in page["Reservations"]:
                for i in r["Instances"]:
                    print(json.dumps({
                        "id": i["InstanceId"],
                        "state": i["State"]["Name"],
                        "type": i["InstanceType"],
                        "spot": i.get("InstanceLifecycle") == "spot",
                        "tags": {t["Key"]: t["Value"] for t in i.get("Tags", [])},
                        "client_token": i.get("ClientToken", ""),
                    }))
    elif command == "launch":
        cluster, vm = args
        ec2.run_instances(
            ImageId="ami-03cf127a",
            MinCount=1,
            MaxCount=1,
            InstanceType="m5.large",
            TagSpecifications=[{
                "ResourceType": "instance",
                "Tags": [
                    {"Key": "frugal.io/cluster", "Value": cluster},
                    {"Key": "frugal.io/vm", "Value": vm},
                ],
            }],
        )
    elif command == "user-data":
        (instance,) = args
        attr = ec2.describe_instance_attribute(InstanceId=instance, Attribute="userData")
        value = attr.get("UserData", {}).get("Value", "")
        sys.stdout.write(base64.b64decode(value).decode())
    else:
        sys.exit(f"unknown command {command!r}")


if __name__ == "__main__":
    main()
