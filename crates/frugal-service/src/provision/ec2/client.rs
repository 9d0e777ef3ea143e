//! The EC2 provisioner over the AWS SDK for Rust (the rules are in the module above).
//! Calls run on a runtime of its own, from the VMs' power threads and the reconciler's,
//! never from the scheduling loop; the SDK retries throttling and transient errors with
//! its standard backoff (up to [`ATTEMPTS`] attempts).

use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use aws_config::retry::RetryConfig;
use aws_config::{BehaviorVersion, Region};
use aws_sdk_ec2::Client;
use aws_sdk_ec2::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_ec2::types::{
    Filter, IamInstanceProfileSpecification, Instance, InstanceInterruptionBehavior,
    InstanceMarketOptionsRequest, InstanceStateName, InstanceType, LaunchTemplateSpecification,
    MarketType, ResourceType, SpotInstanceType, SpotMarketOptions, Tag, TagSpecification,
};
use rand::RngExt;
use tokio::runtime::Handle;

use frugal_core::cluster::VmId;

use frugal_core::spec::SpecError;

use super::{CLUSTER_TAG, Ec2Settings, PowerOff, VM_TAG};
use crate::agent::Runtime;
use crate::provision::{ProvisionError, Provisioner, SPOT_FALLBACKS};

/// Attempts per call, the first included (the SDK's standard retry mode backs off
/// exponentially with jitter between them).
pub const ATTEMPTS: u32 = 5;

/// EC2 error codes that refuse a spot launch for capacity or price: the VM fails and the
/// policy places on the next cheapest VM (the on-demand fallback).
const SPOT_REFUSALS: [&str; 5] = [
    "InsufficientInstanceCapacity",
    "SpotMaxPriceTooLow",
    "MaxSpotInstanceCountExceeded",
    "InsufficientCapacity",
    "UnfulfillableCapacity",
];

/// VMs as EC2 instances.
pub struct Ec2 {
    client: Client,
    rt: Handle,
    settings: Ec2Settings,
    agent_token: String,
    runtime: Runtime,
    /// The private address of each VM's instance, as far as known.
    known: Mutex<BTreeMap<VmId, Option<Ipv4Addr>>>,
}

/// A runtime for the SDK's futures on a thread of its own, so the provisioner can block on
/// them from any plain thread.
fn sdk_runtime() -> Result<Handle, ProvisionError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("ec2".into())
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            match rt {
                Ok(rt) => {
                    let _ = tx.send(Ok(rt.handle().clone()));
                    rt.block_on(std::future::pending::<()>());
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            }
        })
        .map_err(|e| ProvisionError::Failed(format!("ec2: starting its thread: {e}")))?;
    rx.recv()
        .map_err(|e| ProvisionError::Failed(format!("ec2: {e}")))?
        .map_err(|e| ProvisionError::Failed(format!("ec2: its runtime: {e}")))
}

/// `Code: message` of an SDK error, or the whole error chain when EC2 sent no code (a
/// network or credential failure).
fn describe<E: ProvideErrorMetadata + std::error::Error + 'static>(
    call: &str,
    e: &SdkError<E>,
) -> String {
    match (e.code(), e.message()) {
        (Some(code), Some(msg)) => format!("{call}: {code}: {msg}"),
        (Some(code), None) => format!("{call}: {code}"),
        _ => format!("{call}: {}", DisplayErrorContext(e)),
    }
}

/// The standard configuration chain (environment, profile, IMDS) with `region` and
/// `endpoint` overrides, and the SDK's standard retries.
async fn client(region: Option<&str>, endpoint: Option<&str>) -> Result<Client, ProvisionError> {
    let mut loader = aws_config::defaults(BehaviorVersion::latest())
        .retry_config(RetryConfig::standard().with_max_attempts(ATTEMPTS));
    if let Some(r) = region {
        loader = loader.region(Region::new(r.to_string()));
    }
    if let Some(e) = endpoint {
        loader = loader.endpoint_url(e);
    }
    let sdk = loader.load().await;
    if sdk.region().is_none() {
        return Err(ProvisionError::Failed(
            "ec2: no AWS region (give --ec2-region, or set AWS_REGION or a profile's region)"
                .into(),
        ));
    }
    let credentials = sdk.credentials_provider().ok_or_else(|| {
        ProvisionError::Failed("ec2: no AWS credentials provider is configured".into())
    })?;
    aws_credential_types::provider::ProvideCredentials::provide_credentials(&credentials)
        .await
        .map_err(|e| {
            ProvisionError::Failed(format!("ec2: AWS credentials: {}", DisplayErrorContext(&e)))
        })?;
    Ok(Client::new(&sdk))
}

impl Ec2 {
    /// Connects with the standard credential chain and region (overridden by the
    /// settings), checks that both work by listing the cluster's instances, and adopts
    /// or terminates them with `on` telling which VMs the service has on (see
    /// [`Provisioner::reconcile`]).
    ///
    /// # Errors
    /// [`ProvisionError`] with the chain's or EC2's reason: no region, no credentials,
    /// an endpoint that does not answer, a refused `DescribeInstances`.
    pub fn connect(
        settings: Ec2Settings,
        agent_token: String,
        runtime: Runtime,
    ) -> Result<Ec2, ProvisionError> {
        settings
            .validate()
            .map_err(|e| ProvisionError::Failed(e.named(SpecError::flag)))?;
        let rt = sdk_runtime()?;
        let (region, endpoint) = (settings.region.clone(), settings.endpoint.clone());
        let client = on_thread(&rt, async move {
            client(region.as_deref(), endpoint.as_deref()).await
        })?;
        let ec2 = Ec2 {
            client,
            rt,
            settings,
            agent_token,
            runtime,
            known: Mutex::new(BTreeMap::new()),
        };
        ec2.instances()?;
        Ok(ec2)
    }

    /// Every instance of the cluster not yet terminated (nor shutting down), with its VM
    /// (`None` when the tag names no VM of the cluster).
    fn instances(&self) -> Result<Vec<(Option<VmId>, Instance)>, ProvisionError> {
        let req = self
            .client
            .describe_instances()
            .filters(
                Filter::builder()
                    .name(format!("tag:{CLUSTER_TAG}"))
                    .values(&self.settings.cluster)
                    .build(),
            )
            .filters(
                Filter::builder()
                    .name("instance-state-name")
                    .set_values(Some(
                        ["pending", "running", "stopping", "stopped"]
                            .map(String::from)
                            .to_vec(),
                    ))
                    .build(),
            );
        let pages = on_thread(&self.rt, async move {
            req.into_paginator()
                .items()
                .send()
                .collect::<Result<Vec<_>, _>>()
                .await
                .map_err(|e| ProvisionError::Failed(describe("DescribeInstances", &e)))
        })?;
        let vms = self.settings.vms.len();
        Ok(pages
            .into_iter()
            .flat_map(|r| r.instances().to_vec())
            .map(|i| {
                let vm = i
                    .tags()
                    .iter()
                    .find(|t| t.key() == Some(VM_TAG))
                    .and_then(|t| t.value()?.parse::<VmId>().ok())
                    .filter(|&v| (v as usize) < vms);
                (vm, i)
            })
            .collect())
    }

    fn terminate(&self, ids: Vec<String>) -> Result<(), ProvisionError> {
        if ids.is_empty() {
            return Ok(());
        }
        let req = self
            .client
            .terminate_instances()
            .set_instance_ids(Some(ids));
        on_thread(&self.rt, async move {
            req.send()
                .await
                .map(|_| ())
                .map_err(|e| ProvisionError::Failed(describe("TerminateInstances", &e)))
        })
    }

    fn stop(&self, ids: Vec<String>) -> Result<(), ProvisionError> {
        if ids.is_empty() {
            return Ok(());
        }
        let req = self.client.stop_instances().set_instance_ids(Some(ids));
        on_thread(&self.rt, async move {
            req.send()
                .await
                .map(|_| ())
                .map_err(|e| ProvisionError::Failed(describe("StopInstances", &e)))
        })
    }

    fn remember(&self, vm: VmId, i: &Instance) {
        let address = i.private_ip_address().and_then(|a| a.parse().ok());
        self.known
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(vm, address);
    }

    /// `RunInstances` of VM `vm`'s instance.
    fn launch(&self, vm: VmId) -> Result<(), ProvisionError> {
        let s = &self.settings;
        let spec = &s.vms[vm as usize];
        let nonce: u64 = rand::rng().random();
        let token = format!("frugal-{}-vm{vm}-{nonce:016x}", s.cluster);
        let user_data = s.user_data_for(vm, &self.agent_token, &self.runtime);
        let mut tags = TagSpecification::builder()
            .resource_type(ResourceType::Instance)
            .tags(Tag::builder().key(CLUSTER_TAG).value(&s.cluster).build())
            .tags(Tag::builder().key(VM_TAG).value(vm.to_string()).build())
            .tags(Tag::builder().key("Name").value(s.host_id(vm)).build());
        for (k, v) in &s.tags {
            tags = tags.tags(Tag::builder().key(k).value(v).build());
        }
        let mut req = self
            .client
            .run_instances()
            .min_count(1)
            .max_count(1)
            .client_token(token)
            .instance_type(InstanceType::from(spec.instance_type.as_str()))
            .user_data(aws_smithy_types::base64::encode(user_data))
            .tag_specifications(tags.build())
            .set_image_id(s.image_id.clone())
            .set_subnet_id(s.subnet.clone())
            .set_key_name(s.key_name.clone());
        if !s.security_groups.is_empty() {
            req = req.set_security_group_ids(Some(s.security_groups.clone()));
        }
        if let Some(t) = &s.launch_template {
            let lt = LaunchTemplateSpecification::builder();
            req = req.launch_template(if t.starts_with("lt-") {
                lt.launch_template_id(t).build()
            } else {
                lt.launch_template_name(t).build()
            });
        }
        if let Some(p) = &s.instance_profile {
            let ip = IamInstanceProfileSpecification::builder();
            req = req.iam_instance_profile(if p.starts_with("arn:") {
                ip.arn(p).build()
            } else {
                ip.name(p).build()
            });
        }
        if spec.spot {
            req = req.instance_market_options(
                InstanceMarketOptionsRequest::builder()
                    .market_type(MarketType::Spot)
                    .spot_options(
                        SpotMarketOptions::builder()
                            .spot_instance_type(SpotInstanceType::OneTime)
                            .instance_interruption_behavior(InstanceInterruptionBehavior::Terminate)
                            .build(),
                    )
                    .build(),
            );
        }
        let out = on_thread(&self.rt, async move {
            req.send().await.map_err(|e| {
                let refusal = e.code().is_some_and(|c| SPOT_REFUSALS.contains(&c));
                (refusal, describe("RunInstances", &e))
            })
        });
        match out {
            Ok(out) => {
                if let Some(i) = out.instances().first() {
                    self.remember(vm, i);
                    tracing::info!(
                        vm,
                        instance = i.instance_id().unwrap_or_default(),
                        instance_type = %spec.instance_type,
                        spot = spec.spot,
                        "EC2 instance launched"
                    );
                }
                Ok(())
            }
            Err((refusal, why)) if spec.spot && refusal => {
                SPOT_FALLBACKS.fetch_add(1, Ordering::Relaxed);
                Err(ProvisionError::Failed(format!(
                    "spot launch refused, placing elsewhere: {why}"
                )))
            }
            Err((_, why)) => Err(ProvisionError::Failed(why)),
        }
    }
}

/// Runs `f` on the SDK's runtime from any thread (also from within another runtime's
/// blocking section) and waits for it.
fn on_thread<T: Send + 'static>(
    rt: &Handle,
    f: impl std::future::Future<Output = T> + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    rt.spawn(async move {
        let _ = tx.send(f.await);
    });
    rx.recv()
        .expect("the EC2 runtime thread runs until the process exits")
}

fn state(i: &Instance) -> Option<&InstanceStateName> {
    i.state().and_then(|s| s.name())
}

fn live(i: &Instance) -> bool {
    matches!(
        state(i),
        Some(InstanceStateName::Pending | InstanceStateName::Running)
    )
}

impl Provisioner for Ec2 {
    fn name(&self) -> &'static str {
        "ec2"
    }

    /// Unused by EC2 clusters' agents, which call `service_url`; the address the Spark
    /// master and drivers bind to on the control node.
    fn control_address(&self) -> Ipv4Addr {
        Ipv4Addr::UNSPECIFIED
    }

    /// The private address of the VM's instance (0.0.0.0 until one is known).
    fn address(&self, vm: VmId) -> Ipv4Addr {
        self.known
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&vm)
            .copied()
            .flatten()
            .unwrap_or(Ipv4Addr::UNSPECIFIED)
    }

    fn power_on(&self, vm: VmId) -> Result<(), ProvisionError> {
        let mine: Vec<Instance> = self
            .instances()?
            .into_iter()
            .filter(|(v, _)| *v == Some(vm))
            .map(|(_, i)| i)
            .collect();
        if let Some(i) = mine
            .iter()
            .filter(|i| live(i))
            .max_by_key(|i| i.launch_time().map(|t| t.secs()))
        {
            self.remember(vm, i);
            return Ok(());
        }
        if self.settings.power_off == PowerOff::Stop
            && let Some(i) = mine
                .iter()
                .find(|i| state(i) == Some(&InstanceStateName::Stopped))
        {
            let id = i.instance_id().unwrap_or_default().to_string();
            let req = self.client.start_instances().instance_ids(&id);
            on_thread(&self.rt, async move {
                req.send()
                    .await
                    .map(|_| ())
                    .map_err(|e| ProvisionError::Failed(describe("StartInstances", &e)))
            })?;
            self.remember(vm, i);
            return Ok(());
        }
        self.launch(vm)
    }

    fn power_off(&self, vm: VmId) -> Result<(), ProvisionError> {
        self.known
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&vm);
        let ids: Vec<String> = self
            .instances()?
            .into_iter()
            .filter(|(v, i)| {
                *v == Some(vm) && !matches!(state(i), Some(InstanceStateName::Stopped))
            })
            .filter_map(|(_, i)| i.instance_id().map(String::from))
            .collect();
        match self.settings.power_off {
            PowerOff::Stop if !self.settings.vms[vm as usize].spot => self.stop(ids),
            _ => self.terminate(ids),
        }
    }

    /// The rule of the module doc: per VM the service has on, the newest live instance is
    /// adopted; every other instance of the cluster not stopped is terminated.
    fn reconcile(&self, on: &dyn Fn(VmId) -> bool) -> Result<(), ProvisionError> {
        let mut by_vm: BTreeMap<Option<VmId>, Vec<Instance>> = BTreeMap::new();
        for (vm, i) in self.instances()? {
            by_vm.entry(vm).or_default().push(i);
        }
        let mut doomed = Vec::new();
        for (vm, mut list) in by_vm {
            list.sort_by_key(|i| {
                std::cmp::Reverse(i.launch_time().map(|t| (t.secs(), t.subsec_nanos())))
            });
            let keep = match vm {
                Some(v) if on(v) => list.iter().position(live),
                _ => None,
            };
            for (k, i) in list.iter().enumerate() {
                let id = i.instance_id().unwrap_or_default().to_string();
                if Some(k) == keep {
                    if let Some(v) = vm {
                        self.remember(v, i);
                    }
                } else if state(i) != Some(&InstanceStateName::Stopped) || vm.is_none() {
                    tracing::warn!(instance = %id, vm = ?vm, "terminating an instance the service does not expect");
                    doomed.push(id);
                }
            }
        }
        self.terminate(doomed)
    }
}

/// Runs `query` on a runtime of its own with a client for `region` and `endpoint`, for the
/// questions about instance types asked before any provisioner exists. `query` gets the
/// client, `types` as given and `types` as the SDK's names.
fn ask_about_types<T, F, Fut>(
    region: Option<&str>,
    endpoint: Option<&str>,
    types: &[String],
    query: F,
) -> Result<T, ProvisionError>
where
    T: Send + 'static,
    F: FnOnce(Client, Vec<String>, Vec<InstanceType>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<T, ProvisionError>> + Send + 'static,
{
    let rt = sdk_runtime()?;
    let (region, endpoint, types) = (
        region.map(String::from),
        endpoint.map(String::from),
        types.to_vec(),
    );
    on_thread(&rt, async move {
        let client = client(region.as_deref(), endpoint.as_deref()).await?;
        let sdk = types
            .iter()
            .map(|t| InstanceType::from(t.as_str()))
            .collect();
        query(client, types, sdk).await
    })
}

/// Cores and memory (GiB) of each of `types`, from `DescribeInstanceTypes`.
///
/// # Errors
/// The chain's or EC2's reason; a type EC2 does not know.
pub fn describe_instance_types(
    region: Option<&str>,
    endpoint: Option<&str>,
    types: &[String],
) -> Result<Vec<(String, u32, f64)>, ProvisionError> {
    ask_about_types(region, endpoint, types, |client, types, sdk| async move {
        let infos = client
            .describe_instance_types()
            .set_instance_types(Some(sdk))
            .into_paginator()
            .items()
            .send()
            .collect::<Result<Vec<_>, _>>()
            .await
            .map_err(|e| ProvisionError::Failed(describe("DescribeInstanceTypes", &e)))?;
        types
            .iter()
            .map(|t| {
                let info = infos
                    .iter()
                    .find(|i| i.instance_type().map(|x| x.as_str()) == Some(t.as_str()))
                    .ok_or_else(|| {
                        ProvisionError::Failed(format!("--types {t}: EC2 does not list it"))
                    })?;
                let cores = info
                    .v_cpu_info()
                    .and_then(|v| v.default_v_cpus())
                    .unwrap_or(0);
                let mib = info
                    .memory_info()
                    .and_then(|m| m.size_in_mib())
                    .unwrap_or(0);
                Ok((t.clone(), cores.max(0) as u32, mib as f64 / 1024.0))
            })
            .collect()
    })
}

/// The latest spot price ($/h) of each of `types` per availability zone, from
/// `DescribeSpotPriceHistory` (Linux/UNIX).
///
/// # Errors
/// The chain's or EC2's reason.
pub fn latest_spot_prices(
    region: Option<&str>,
    endpoint: Option<&str>,
    types: &[String],
) -> Result<Vec<(String, String, f64)>, ProvisionError> {
    ask_about_types(region, endpoint, types, |client, _, sdk| async move {
        let prices = client
            .describe_spot_price_history()
            .set_instance_types(Some(sdk))
            .product_descriptions("Linux/UNIX")
            .into_paginator()
            .items()
            .send()
            .collect::<Result<Vec<_>, _>>()
            .await
            .map_err(|e| ProvisionError::Failed(describe("DescribeSpotPriceHistory", &e)))?;
        // Latest per (type, zone).
        let mut latest: BTreeMap<(String, String), (i64, f64)> = BTreeMap::new();
        for p in prices {
            let (Some(t), Some(zone), Some(price), Some(at)) = (
                p.instance_type().map(|t| t.as_str().to_string()),
                p.availability_zone().map(String::from),
                p.spot_price().and_then(|s| s.parse::<f64>().ok()),
                p.timestamp().map(|t| t.secs()),
            ) else {
                continue;
            };
            let e = latest.entry((t, zone)).or_insert((at, price));
            if at > e.0 {
                *e = (at, price);
            }
        }
        Ok(latest
            .into_iter()
            .map(|((t, z), (_, p))| (t, z, p))
            .collect())
    })
}
