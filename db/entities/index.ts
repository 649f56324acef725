import { Tenant } from './Tenant.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Branch } from './Branch.js';
import { VehicleCategory } from './VehicleCategory.js';
import { Vehicle } from './Vehicle.js';
import { Customer } from './Customer.js';
import { Rental } from './Rental.js';
import { Event } from './Event.js';
import { Role } from './Role.js';
import { RoleAssignment } from './RoleAssignment.js';
import { ApiClient } from './ApiClient.js';
import { Setting } from './Setting.js';
import { VehicleCommand } from './VehicleCommand.js';
import { PricingBundle } from './PricingBundle.js';
import { PricingBundleVersion } from './PricingBundleVersion.js';
import { PricingAssignment } from './PricingAssignment.js';
import { VehicleTelemetry } from './VehicleTelemetry.js';
import { IotModule } from './IotModule.js';
import { Task } from './Task.js';
import { VehicleNote } from './VehicleNote.js';
import { VehicleAction } from './VehicleAction.js';

export {
  Tenant,
  BusinessUnit,
  Branch,
  VehicleCategory,
  Vehicle,
  Customer,
  Rental,
  Event,
  Role,
  RoleAssignment,
  ApiClient,
  Setting,
  VehicleCommand,
  PricingBundle,
  PricingBundleVersion,
  PricingAssignment,
  VehicleTelemetry,
  IotModule,
  Task,
  VehicleNote,
  VehicleAction,
};
export { TenantScoped, TENANT_FILTER } from './TenantScoped.js';
